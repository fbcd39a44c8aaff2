/* cs_host — the host machine's memory as a run's preflight sees it, and byte counts in text.
 *
 * A run estimates the host memory it will need before it allocates (docs/RELIABILITY.md,
 * "Resources") and refuses, with the estimate and the limit, when the estimate is over the
 * limit: by default CS_HOST_MEMORY_DEFAULT_PERCENT of the memory the process may use (the
 * machine's RAM, or its cgroup's memory.max when that is smaller), or what --max-memory says.
 */
#ifndef CS_HOST_H
#define CS_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"

/* The share of the host's memory a run may use unless told otherwise: the rest is left to the
 * system, the page cache and whatever else runs (a swapping run is slower than a refused one). */
#define CS_HOST_MEMORY_DEFAULT_PERCENT 80u

/* The memory this process may use: physical RAM (sysconf), or the cgroup v2 limit of the
 * process (/sys/fs/cgroup/memory.max) when it is set and smaller. 0 when neither is known. */
uint64_t cs_host_memory_bytes(void);

/* CS_HOST_MEMORY_DEFAULT_PERCENT of cs_host_memory_bytes (UINT64_MAX when unknown: no limit). */
uint64_t cs_host_default_memory_limit(void);

/* A memory size as a user writes it: bytes ("1048576"), binary multiples ("512K", "512KiB",
 * "8M", "8G", "1.5GiB", "2T"), decimal ones ("8GB" = 8e9, "500MB"), or a share of
 * cs_host_memory_bytes ("50%", 1 to 100). what names the option in messages. */
cs_status cs_host_parse_memory(const char *text, const char *what, uint64_t *out, cs_err *err);

/* "512 B", "1.5 KiB", "7.2 GiB": one decimal from KiB on. */
void cs_bytes_text(uint64_t bytes, char *out, size_t n);

#endif
