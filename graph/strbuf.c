#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "graph/strbuf.h"

void
ilpi_buf_init(ilpi_buf *b)
{
	memset(b, 0, sizeof *b);
}

void
ilpi_buf_free(ilpi_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

static int
reserve(ilpi_buf *b, size_t extra)
{
	if (b->failed)
		return -1;
	/* extra + 1 for the NUL: extra is a length, never SIZE_MAX */
	if (ILPI_GROW(b->data, b->cap, b->len, extra + 1) != 0) {
		b->failed = 1;
		return -1;
	}
	return 0;
}

void
ilpi_buf_reserve(ilpi_buf *b, size_t len)
{
	(void)reserve(b, len);
}

void
ilpi_buf_add(ilpi_buf *b, const char *s, size_t len)
{
	if (reserve(b, len) != 0)
		return;
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void
ilpi_buf_puts(ilpi_buf *b, const char *s)
{
	ilpi_buf_add(b, s, strlen(s));
}

void
ilpi_buf_printf(ilpi_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
ilpi_buf_json_str(ilpi_buf *b, const char *s)
{
	ilpi_buf_add(b, "\"", 1);
	for (;;) {
		const char *run = s;
		unsigned char c;

		/* a run of bytes that need no escape goes in at once */
		while (*s != '\0' && *s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			s++;
		if (s > run)
			ilpi_buf_add(b, run, (size_t)(s - run));
		if ((c = (unsigned char)*s) == '\0')
			break;
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };

			ilpi_buf_add(b, esc, 2);
		} else {
			ilpi_buf_printf(b, "\\u%04x", c);
		}
		s++;
	}
	ilpi_buf_add(b, "\"", 1);
}

void
ilpi_buf_json_num(ilpi_buf *b, double v)
{
	if (!isfinite(v))
		ilpi_buf_puts(b, "null");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		ilpi_buf_printf(b, "%.0f", v);
	else
		ilpi_buf_printf(b, "%.17g", v);
}

char *
ilpi_buf_take(ilpi_buf *b)
{
	char *p;

	if (b->failed || reserve(b, 0) != 0) {
		ilpi_buf_free(b);
		return NULL;
	}
	p = b->data;
	memset(b, 0, sizeof *b);
	return p;
}

void
ilpi_buf_csv_field(ilpi_buf *b, const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		ilpi_buf_puts(b, s);
		return;
	}
	ilpi_buf_puts(b, "\"");
	for (; *s != '\0'; s++) {
		if (*s == '"')
			ilpi_buf_puts(b, "\"");
		ilpi_buf_add(b, s, 1);
	}
	ilpi_buf_puts(b, "\"");
}
