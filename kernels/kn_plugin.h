/* kn_plugin — operators from outside the tree: the registry `cubesim run` and `cubesim kernels`
 * look names up in (the built-in operators, plus any added by a program or loaded from a
 * plug-in), and the one versioned entry point a plug-in defines.
 *
 * A plug-in is a shared library built against the installed headers. It defines its operators
 * as kn_op values (kn_op.h) and declares them once:
 *
 *   KN_PLUGIN("myops", &my_matmul_relu, &my_other_op)
 *
 * which defines the entry point `cubesim_plugin_register`. Loading calls it with the host's
 * KN_PLUGIN_ABI_VERSION; the plug-in answers with its kn_plugin, whose first field is the
 * version it was built with. A different version is refused with a message naming both, before
 * anything else of the plug-in is read.
 */
#ifndef KN_PLUGIN_H
#define KN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_status.h"
#include "kernels/kn_op.h"

/* The version of what a plug-in and cubesim share: kn_plugin, kn_op and the functions kn_op.h
 * and the runtime offer. Raised whenever one of them changes incompatibly. */
#define KN_PLUGIN_ABI_VERSION 1u
/* The name of the entry point, as dlsym looks it up. */
#define KN_PLUGIN_ENTRY_NAME "cubesim_plugin_register"

typedef struct kn_plugin {
  uint32_t abi_version;      /* KN_PLUGIN_ABI_VERSION of the headers the plug-in was built with;
                                the first field in every version */
  const char *name;          /* for listings and messages: "myops" */
  const kn_op *const *ops;   /* its operators */
  size_t nops;
} kn_plugin;

/* The entry point: called once, when the plug-in is loaded; returns a description in static
 * storage, or NULL to decline (the load then fails). */
typedef const kn_plugin *(*kn_plugin_entry_fn)(uint32_t host_abi_version);

/* Defines the entry point of a plug-in named `plugin_name` with the operators given (pointers to
 * const kn_op). Exported even under -fvisibility=hidden. */
#define KN_PLUGIN(plugin_name, ...)                                                             \
  __attribute__((visibility("default"))) const kn_plugin *cubesim_plugin_register(uint32_t v); \
  const kn_plugin *cubesim_plugin_register(uint32_t v) {                                        \
    static const kn_op *const kn_plugin_ops[] = {__VA_ARGS__};                                  \
    static const kn_plugin kn_plugin_self = {KN_PLUGIN_ABI_VERSION, plugin_name, kn_plugin_ops, \
                                             sizeof kn_plugin_ops / sizeof kn_plugin_ops[0]};   \
    (void)v;                                                                                    \
    return &kn_plugin_self;                                                                     \
  }

/* ---- the registry ------------------------------------------------------------------------ */

typedef struct kn_registry kn_registry;

/* A registry holding the built-in operators (KN_OP_TABLE). */
cs_status kn_registry_create(kn_registry **out, cs_err *err);
/* Unloads the plug-ins: no context of their operators may outlive it. Accepts NULL. */
void kn_registry_destroy(kn_registry *r);

/* Adds one operator (it must outlive the registry). Its declarations are checked: a name of
 * lower-case letters, digits and '_' not already taken, a run function, at least one output and
 * at most KN_MAX_OUTPUTS, known data types, attribute kinds and defaults that parse. `origin`
 * names where it comes from in messages and listings (a plug-in's path; NULL: the program). */
cs_status kn_registry_add(kn_registry *r, const kn_op *op, const char *origin, cs_err *err);
/* Loads the plug-in at `path` (a path with no '/' is looked for in the current directory first)
 * and adds its operators, all or none. Refused, with a message naming the file: a file that
 * cannot be loaded, one without the entry point, an entry point that declines, another ABI
 * version, an operator the checks of kn_registry_add refuse. */
cs_status kn_registry_load(kn_registry *r, const char *path, cs_err *err);

size_t kn_registry_count(const kn_registry *r);
/* Operator i (built-ins first, in KN_OP_TABLE order, then in the order added), or NULL. */
const kn_op *kn_registry_at(const kn_registry *r, size_t i);
/* Where operator i comes from: NULL for a built-in, else its origin ("build/libmyops.so"). */
const char *kn_registry_origin(const kn_registry *r, size_t i);
const kn_op *kn_registry_find(const kn_registry *r, const char *name);
/* The operator name closest to a mistyped one (cs_suggest), or NULL. */
const char *kn_registry_suggest(const kn_registry *r, const char *typed);

#endif
