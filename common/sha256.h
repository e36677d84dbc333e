/*
 * SHA-256 (FIPS 180-4), for the file digests in reports (internal header).
 */
#ifndef AC_COMMON_SHA256_H
#define AC_COMMON_SHA256_H

#include <stddef.h>

/* Write the lower-case hex digest of buf[0..len) into hex (65 bytes with the NUL). */
void ac_sha256_hex(const void *buf, size_t len, char hex[65]);

#endif
