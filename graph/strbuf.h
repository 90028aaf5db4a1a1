/* strbuf.h - growable byte buffer for writers (internal). Out-of-memory is sticky:
 * appends after a failure do nothing and ilpi_buf_take() returns NULL. */
#ifndef ILPART_GRAPH_STRBUF_H
#define ILPART_GRAPH_STRBUF_H

#include <stddef.h>

typedef struct ilpi_buf {
	char *data;
	size_t len, cap;
	int failed;
} ilpi_buf;

void ilpi_buf_init(ilpi_buf *b);
void ilpi_buf_free(ilpi_buf *b);
/* Room for len more bytes (a hint: appends grow the buffer anyway). */
void ilpi_buf_reserve(ilpi_buf *b, size_t len);
void ilpi_buf_add(ilpi_buf *b, const char *s, size_t len);
void ilpi_buf_puts(ilpi_buf *b, const char *s);
/* s as one CSV field: quoted (inner quotes doubled) when it holds a comma, quote or
 * newline, as it is otherwise. */
void ilpi_buf_csv_field(ilpi_buf *b, const char *s);
void ilpi_buf_printf(ilpi_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal, quotes included. */
void ilpi_buf_json_str(ilpi_buf *b, const char *s);
/* A double as JSON: integers without a fraction, others with %.17g; deterministic. */
void ilpi_buf_json_num(ilpi_buf *b, double v);
/* The NUL-terminated contents, handed to the caller (free()); NULL after a failure. */
char *ilpi_buf_take(ilpi_buf *b);

#endif /* ILPART_GRAPH_STRBUF_H */
