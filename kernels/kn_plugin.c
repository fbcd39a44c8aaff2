/* kn_plugin — the operator registry, and loading operators from plug-ins. */
#include "kernels/kn_plugin.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cs_suggest.h"

typedef struct registered {
  const kn_op *op;
  const char *origin; /* NULL: built in; else a string of the registry (origins[]) */
} registered;

struct kn_registry {
  registered *ops;
  size_t nops, cap;
  void **handles; /* dlopen handles of the loaded plug-ins */
  char **origins; /* their paths, as given */
  size_t nplugins;
};

cs_status kn_registry_create(kn_registry **out, cs_err *err) {
  *out = NULL;
  kn_registry *r = calloc(1, sizeof *r);
  if (!r) return cs_err_set(err, CS_ENOMEM, "operator registry: no host memory");
  for (size_t i = 0; i < kn_op_count(); i++) {
    cs_status st = kn_registry_add(r, kn_op_at(i), NULL, err);
    if (st != CS_OK) {
      kn_registry_destroy(r);
      return st;
    }
  }
  *out = r;
  return CS_OK;
}

void kn_registry_destroy(kn_registry *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nplugins; i++) {
    dlclose(r->handles[i]);
    free(r->origins[i]);
  }
  free(r->handles);
  free(r->origins);
  free(r->ops);
  free(r);
}

size_t kn_registry_count(const kn_registry *r) { return r->nops; }
const kn_op *kn_registry_at(const kn_registry *r, size_t i) { return i < r->nops ? r->ops[i].op : NULL; }
const char *kn_registry_origin(const kn_registry *r, size_t i) { return i < r->nops ? r->ops[i].origin : NULL; }

static ptrdiff_t find(const kn_registry *r, const char *name) {
  for (size_t i = 0; i < r->nops; i++)
    if (strcmp(r->ops[i].op->name, name) == 0) return (ptrdiff_t)i;
  return -1;
}

const kn_op *kn_registry_find(const kn_registry *r, const char *name) {
  ptrdiff_t i = find(r, name);
  return i >= 0 ? r->ops[i].op : NULL;
}

const char *kn_registry_suggest(const kn_registry *r, const char *typed) {
  cs_suggest sg;
  cs_suggest_init(&sg, typed);
  for (size_t i = 0; i < r->nops; i++) cs_suggest_offer(&sg, r->ops[i].op->name);
  return cs_suggest_best(&sg);
}

/* ---- checking a declaration ---------------------------------------------------------------- */

/* 1 to max_len characters of a-z, 0-9, '_' (and A-Z when upper is true: the names documents give
 * inputs, such as DirectML's ATensor). */
static bool is_name(const char *s, size_t max_len, bool upper) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > max_len) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || (upper && *s >= 'A' && *s <= 'Z')))
      return false;
  return true;
}

/* Every item of a comma-separated list of dtype names is one; else the first that is not goes to
 * bad. */
static bool dtypes_known(const char *list, char *bad, size_t bad_bytes) {
  if (!list || !*list) {
    snprintf(bad, bad_bytes, "(none)");
    return false;
  }
  for (const char *p = list; p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    snprintf(item, sizeof item, "%.*s", (int)len, p);
    if (len >= sizeof item || isa_dtype_from_name(item) == ISA_DTYPE_COUNT) {
      snprintf(bad, bad_bytes, "%.*s", (int)len, p);
      return false;
    }
    p = comma ? comma + 1 : NULL;
  }
  return true;
}

static cs_status check_ios(const kn_op *op, const char *what, const kn_io_desc *d, uint32_t n,
                           cs_err *err) {
  if (n && !d) return cs_err_set(err, CS_EINVAL, "operator '%s': %u %ss but no declarations", op->name, n, what);
  for (uint32_t i = 0; i < n; i++) {
    char bad[64];
    if (!is_name(d[i].name, 31, true))
      return cs_err_set(err, CS_EINVAL, "operator '%s': %s %u is named '%s' (1 to 31 of a-z, A-Z, 0-9, _)", op->name,
                        what, i, d[i].name ? d[i].name : "(null)");
    if (!dtypes_known(d[i].dtypes, bad, sizeof bad))
      return cs_err_set(err, CS_EINVAL, "operator '%s': %s '%s' accepts the unknown data type '%s'", op->name,
                        what, d[i].name, bad);
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(d[j].name, d[i].name) == 0)
        return cs_err_set(err, CS_EINVAL, "operator '%s': two %ss are named '%s'", op->name, what, d[i].name);
  }
  return CS_OK;
}

static cs_status check_op(const kn_registry *r, const kn_op *op, cs_err *err) {
  if (!op) return cs_err_set(err, CS_EINVAL, "an operator is NULL");
  if (!is_name(op->name, 63, false))
    return cs_err_set(err, CS_EINVAL, "an operator is named '%s' (1 to 63 of a-z, 0-9, _)",
                      op->name ? op->name : "(null)");
  ptrdiff_t twin = find(r, op->name);
  if (twin >= 0)
    return cs_err_set(err, CS_EINVAL, "operator '%s' is already registered (%s%s)", op->name,
                      r->ops[twin].origin ? "from " : "built in", r->ops[twin].origin ? r->ops[twin].origin : "");
  if (!op->run) return cs_err_set(err, CS_EINVAL, "operator '%s' has no run function", op->name);
  /* a simulated operator may have its time as its only result (a bandwidth benchmark) */
  if (op->noutputs > KN_MAX_OUTPUTS || (op->noutputs == 0 && !op->simulated))
    return cs_err_set(err, CS_EINVAL, "operator '%s' declares %u outputs (%d to %d)", op->name, op->noutputs,
                      op->simulated ? 0 : 1, KN_MAX_OUTPUTS);
  cs_status st = check_ios(op, "input", op->inputs, op->ninputs, err);
  if (st == CS_OK) st = check_ios(op, "output", op->outputs, op->noutputs, err);
  if (st != CS_OK) return st;
  if (op->nattrs && !op->attrs)
    return cs_err_set(err, CS_EINVAL, "operator '%s': %u attributes but no declarations", op->name, op->nattrs);
  for (uint32_t i = 0; i < op->nattrs; i++) {
    const kn_attr_desc *a = &op->attrs[i];
    if (!is_name(a->name, 31, true))
      return cs_err_set(err, CS_EINVAL, "operator '%s': attribute %u is named '%s' (1 to 31 of a-z, A-Z, 0-9, _)",
                        op->name, i, a->name ? a->name : "(null)");
    if ((unsigned)a->kind > KN_ATTR_STR)
      return cs_err_set(err, CS_EINVAL, "operator '%s': attribute '%s' has the unknown kind %d", op->name, a->name,
                        (int)a->kind);
    if (a->kind == KN_ATTR_ENUM && (!a->choices || !*a->choices))
      return cs_err_set(err, CS_EINVAL, "operator '%s': enum attribute '%s' has no choices", op->name, a->name);
    if (a->def && (st = kn_attr_check(a, a->def, err)) != CS_OK) {
      cs_err_prefix(err, "operator '%s': the default of", op->name);
      return st;
    }
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(op->attrs[j].name, a->name) == 0)
        return cs_err_set(err, CS_EINVAL, "operator '%s': two attributes are named '%s'", op->name, a->name);
  }
  return CS_OK;
}

cs_status kn_registry_add(kn_registry *r, const kn_op *op, const char *origin, cs_err *err) {
  cs_status st = check_op(r, op, err);
  if (st != CS_OK) return st;
  if (r->nops == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    registered *grown = realloc(r->ops, cap * sizeof *grown);
    if (!grown) return cs_err_set(err, CS_ENOMEM, "operator registry: no host memory");
    r->ops = grown;
    r->cap = cap;
  }
  r->ops[r->nops++] = (registered){op, origin};
  return CS_OK;
}

/* ---- plug-ins ------------------------------------------------------------------------------ */

/* Adds a loaded plug-in's operators, all or none. */
static cs_status add_plugin_ops(kn_registry *r, const kn_plugin *p, const char *origin, cs_err *err) {
  size_t before = r->nops;
  if (!p->ops && p->nops) return cs_err_set(err, CS_EINVAL, "it declares %zu operators but no list", p->nops);
  for (size_t i = 0; i < p->nops; i++) {
    cs_status st = kn_registry_add(r, p->ops[i], origin, err);
    if (st != CS_OK) {
      r->nops = before;
      return st;
    }
  }
  return CS_OK;
}

cs_status kn_registry_load(kn_registry *r, const char *path, cs_err *err) {
  /* dlopen searches the library path for a bare name; a file of that name here is meant */
  size_t n = strlen(path) + 3;
  char *origin = malloc(n);
  void **handles = realloc(r->handles, (r->nplugins + 1) * sizeof *handles);
  if (handles) r->handles = handles;
  char **origins = handles ? realloc(r->origins, (r->nplugins + 1) * sizeof *origins) : NULL;
  if (origins) r->origins = origins;
  if (!origin || !handles || !origins) {
    free(origin);
    return cs_err_set(err, CS_ENOMEM, "plug-in %s: no host memory", path);
  }
  snprintf(origin, n, "%s%s", !strchr(path, '/') && access(path, F_OK) == 0 ? "./" : "", path);
  dlerror();
  void *h = dlopen(origin, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    cs_err_set(err, CS_EINVAL, "plug-in %s: cannot be loaded: %s", path, why ? why : "unknown reason");
    free(origin);
    return CS_EINVAL;
  }
  kn_plugin_entry_fn entry;
  void *sym = dlsym(h, KN_PLUGIN_ENTRY_NAME);
  memcpy(&entry, &sym, sizeof entry); /* POSIX: a data pointer from dlsym converts to a function */
  const kn_plugin *p = entry ? entry(KN_PLUGIN_ABI_VERSION) : NULL;
  cs_status st = CS_OK;
  if (!entry)
    st = cs_err_set(err, CS_EINVAL, "plug-in %s: not a cubesim plug-in (it defines no %s; see KN_PLUGIN in "
                    "kernels/kn_plugin.h)", path, KN_PLUGIN_ENTRY_NAME);
  else if (!p)
    st = cs_err_set(err, CS_EINVAL, "plug-in %s: %s declined to register (it returned NULL)", path,
                    KN_PLUGIN_ENTRY_NAME);
  else if (p->abi_version != KN_PLUGIN_ABI_VERSION)
    st = cs_err_set(err, CS_EINVAL, "plug-in %s: built for plug-in ABI version %u, this cubesim (%s) loads version "
                    "%u: rebuild it against this cubesim's headers", path, p->abi_version, cs_version(),
                    KN_PLUGIN_ABI_VERSION);
  else if ((st = add_plugin_ops(r, p, origin, err)) != CS_OK)
    cs_err_prefix(err, "plug-in %s", path);
  if (st != CS_OK) {
    dlclose(h);
    free(origin);
    return st;
  }
  r->handles[r->nplugins] = h;
  r->origins[r->nplugins++] = origin;
  return CS_OK;
}
