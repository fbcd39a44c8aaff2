/* cs_host — host memory size and limit, memory sizes in text (see cs_host.h). */
#include "base/cs_host.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The cgroup v2 memory limit of this process ("max": none), or 0. */
static uint64_t cgroup_limit_bytes(void) {
  FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
  if (!f) return 0;
  char line[64] = "";
  uint64_t v = 0;
  if (fgets(line, sizeof line, f) && isdigit((unsigned char)line[0])) v = strtoull(line, NULL, 10);
  fclose(f);
  return v;
}

uint64_t cs_host_memory_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  uint64_t cg = cgroup_limit_bytes();
  if (cg && (!phys || cg < phys)) return cg;
  return phys;
}

uint64_t cs_host_default_memory_limit(void) {
  uint64_t m = cs_host_memory_bytes();
  return m ? m / 100 * CS_HOST_MEMORY_DEFAULT_PERCENT : UINT64_MAX;
}

static cs_status not_a_size(const char *what, const char *text, cs_err *err) {
  return cs_err_set(err, CS_EINVAL,
                    "%s: '%s' is not a memory size (bytes, 512M, 8G, 1.5GiB, 8GB or a share like 50%%)", what,
                    text);
}

cs_status cs_host_parse_memory(const char *text, const char *what, uint64_t *out, cs_err *err) {
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {
      {"", 1},           {"B", 1},           {"K", 1024.0},     {"KiB", 1024.0},
      {"M", 1048576.0},  {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GiB", 1073741824.0},
      {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6},
      {"GB", 1e9},       {"TB", 1e12},
  };
  if (!text || !isdigit((unsigned char)text[0])) return not_a_size(what, text ? text : "", err);
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || !isfinite(v) || end == text) return not_a_size(what, text, err);
  if (strcmp(end, "%") == 0) {
    if (v < 1 || v > 100)
      return cs_err_set(err, CS_EINVAL, "%s: '%s': a share of the host's memory is 1%% to 100%%", what, text);
    uint64_t host = cs_host_memory_bytes();
    if (!host) return cs_err_set(err, CS_EINVAL, "%s: '%s': the host's memory size is unknown", what, text);
    *out = (uint64_t)((double)host * v / 100.0);
    return CS_OK;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcasecmp(end, units[i].suffix) != 0) continue;
    double bytes = v * units[i].scale;
    if (bytes < 1) return cs_err_set(err, CS_EINVAL, "%s: '%s' is less than one byte", what, text);
    if (bytes >= 18446744073709551616.0) return cs_err_set(err, CS_EINVAL, "%s: '%s' does not fit in 64 bits", what, text);
    *out = (uint64_t)bytes;
    return CS_OK;
  }
  return not_a_size(what, text, err);
}

void cs_bytes_text(uint64_t bytes, char *out, size_t n) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(out, n, "%llu B", (unsigned long long)bytes);
    return;
  }
  double x = (double)bytes / 1024.0;
  size_t u = 0;
  while (x >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) x /= 1024.0, u++;
  snprintf(out, n, "%.1f %s", x, units[u]);
}
