/*
 * sha256.h - SHA-256 (FIPS 180-4), for graph fingerprints and policy content hashes
 * (internal). Implemented here rather than taken from a crypto library: ilpart needs
 * one well-defined 256-bit hash that Python's hashlib.sha256 reproduces, not a
 * dependency.
 */
#ifndef ILPART_GRAPH_SHA256_H
#define ILPART_GRAPH_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct ilpi_sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes absorbed */
	uint8_t block[64];
	size_t used;           /* bytes in block */
} ilpi_sha256;

void ilpi_sha256_init(ilpi_sha256 *s);
void ilpi_sha256_update(ilpi_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void ilpi_sha256_hex(ilpi_sha256 *s, char out[65]);
/* The compression function on nblk 64-byte blocks: with the x86 SHA extensions when
 * accel and the CPU has them, else portable C (the same result either way). */
void ilpi_sha256_blocks(uint32_t h[8], const uint8_t *blk, size_t nblk, int accel);
/* 1 when ilpi_sha256_blocks(..., 1) uses the SHA extensions here. */
int ilpi_sha256_accelerated(void);
/* One call: SHA-256 of `len` bytes as hex. */
void ilpi_sha256_buf(const void *data, size_t len, char out[65]);

#endif /* ILPART_GRAPH_SHA256_H */
