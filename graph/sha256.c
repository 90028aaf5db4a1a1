/* sha256.c - SHA-256 as FIPS 180-4 specifies it (graph/sha256.h). */
#include "config.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1
#endif

#include "graph/sha256.h"

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2
};

static uint32_t
ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void
compress(ilpi_sha256 *s, const uint8_t *blk)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
		    (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
		    k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

#ifdef HAVE_SHA_NI
/*
 * The same compression with the x86 SHA extensions: a register holds four words, the
 * state lives as ABEF and CDGH (the order sha256rnds2 takes), each sha256rnds2 does
 * two rounds, sha256msg1/msg2 extend the schedule four words at a time:
 * W[t..t+3] = msg2(msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1]).
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
compress_ni(uint32_t h[8], const uint8_t *blk, size_t nblk)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)&h[4]);
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xB1), efgh = _mm_shuffle_epi32(hgfe, 0x1B);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8), cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

	for (; nblk > 0; nblk--, blk += 64) {
		__m128i m[4], save0 = abef, save1 = cdgh, wk;

		for (int i = 0; i < 16; i++) {
			if (i < 4)
				m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blk + 16 * i)),
				    bswap);
			else
				m[i & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(
				    _mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]),
				    _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4)), m[(i + 3) & 3]);
			wk = _mm_add_epi32(m[i & 3], _mm_loadu_si128((const __m128i *)&k[4 * i]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
		}
		abef = _mm_add_epi32(abef, save0);
		cdgh = _mm_add_epi32(cdgh, save1);
	}
	{
		__m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);

		_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0));
		_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
	}
}

static int
sha_ni(void)
{
	static int have = -1;   /* every thread computes the same answer */
	int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
	unsigned a, b, c, d;

	if (h < 0) {
		h = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}
#endif

int
ilpi_sha256_accelerated(void)
{
#ifdef HAVE_SHA_NI
	return sha_ni();
#else
	return 0;
#endif
}

void
ilpi_sha256_blocks(uint32_t h[8], const uint8_t *blk, size_t nblk, int accel)
{
#ifdef HAVE_SHA_NI
	if (accel && sha_ni()) {
		compress_ni(h, blk, nblk);
		return;
	}
#else
	(void)accel;
#endif
	for (; nblk > 0; nblk--, blk += 64) {
		ilpi_sha256 s;

		memcpy(s.h, h, sizeof s.h);
		compress(&s, blk);
		memcpy(h, s.h, sizeof s.h);
	}
}

void
ilpi_sha256_init(ilpi_sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, h0, sizeof h0);
	s->len = 0;
	s->used = 0;
}

void
ilpi_sha256_update(ilpi_sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->len += len;
	while (len > 0) {
		size_t take = 64 - s->used < len ? 64 - s->used : len;

		if (s->used == 0 && len >= 64) {
			/* whole blocks straight from the input */
			ilpi_sha256_blocks(s->h, p, len / 64, 1);
			p += len / 64 * 64;
			len %= 64;
			continue;
		}
		memcpy(s->block + s->used, p, take);
		s->used += take;
		p += take;
		len -= take;
		if (s->used == 64) {
			ilpi_sha256_blocks(s->h, s->block, 1, 1);
			s->used = 0;
		}
	}
}

void
ilpi_sha256_hex(ilpi_sha256 *s, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, len[8];

	ilpi_sha256_update(s, &pad, 1);
	pad = 0;
	while (s->used != 56)
		ilpi_sha256_update(s, &pad, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	ilpi_sha256_update(s, len, 8);
	for (int i = 0; i < 32; i++) {
		uint8_t byte = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));

		out[2 * i] = hex[byte >> 4];
		out[2 * i + 1] = hex[byte & 15];
	}
	out[64] = '\0';
}

void
ilpi_sha256_buf(const void *data, size_t len, char out[65])
{
	ilpi_sha256 s;

	ilpi_sha256_init(&s);
	ilpi_sha256_update(&s, data, len);
	ilpi_sha256_hex(&s, out);
}
