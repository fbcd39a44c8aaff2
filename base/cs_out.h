/* cs_out — the one way cubesim writes a file: every output of a run (trace, .npy, CSV, JSON,
 * stream dumps, reports) goes through a set that commits them together or not at all.
 *
 * What a target becomes, by what it is (decided when the output is added, before any work):
 *   - a regular file, or a name that does not exist yet: the content is written to a fresh
 *     temporary file next to the target (same directory, so the rename is atomic), created with
 *     O_CREAT|O_EXCL|O_NOFOLLOW, so a file or symlink already at that name is never opened;
 *     it gets the target's mode (and owner, when allowed). At commit it is fsync'd and renamed
 *     over the target, then the directory is fsync'd.
 *   - a symlink: resolved (hop by hop, at most 40) to what it points at, which is then treated
 *     as above; the link itself stays a link.
 *   - a character or block device, a FIFO (/dev/null, /dev/full, a named pipe): written in
 *     place, never replaced. Opening a FIFO waits for its reader, as any writer does.
 *   - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the process's descriptor N,
 *     written in place whatever it refers to (a terminal, a pipe, a file the shell opened).
 *   - a directory, a socket, a missing directory, a file without write permission: refused
 *     with the output's name, the path and the reason.
 *
 * All or nothing. Commit first finishes every output (flush, fsync, close: any error fails the
 * commit and removes every temporary file), then renames the temporary files in the order the
 * outputs were added. If a rename fails, the targets already renamed are put back (each one's
 * old content was kept under a hard link made just before; a new file is removed), so on any
 * failure no regular target has changed. A special file receives its data as it is written
 * (a FIFO's reader cannot un-read it); only that part is not undone.
 *
 * Signals. The library keeps no process-wide state. A program that wants SIGINT/SIGTERM to
 * remove temporary files passes hooks: temp_created is called right after a temporary file
 * is created, temp_removed right before it is renamed over its target or unlinked, each call
 * made together with its file operation while SIGHUP, SIGINT, SIGQUIT and SIGTERM are blocked
 * in the calling thread, so that a handler never misses a file nor removes a renamed one
 * (cli/cli_temps.c keeps such a registry).
 */
#ifndef CS_OUT_H
#define CS_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/cs_status.h"

typedef struct cs_out_set cs_out_set;
typedef struct cs_out cs_out;

typedef struct cs_out_hooks {
  /* path exists now; return false to refuse it (the output is then not added) */
  bool (*temp_created)(void *ctx, const char *path);
  /* path is about to be renamed over its target or removed */
  void (*temp_removed)(void *ctx, const char *path);
  void *ctx;
} cs_out_hooks;

/* An empty set; hooks may be NULL (no signal bookkeeping). */
cs_status cs_out_set_create(const cs_out_hooks *hooks, cs_out_set **out, cs_err *err);

/* Validates path as the output called `what` in messages ("--trace", "--out y") and reserves
 * it: a regular target's temporary file is created now. Two outputs naming the same regular
 * file are refused. *out (may be NULL) belongs to the set. */
cs_status cs_out_add(cs_out_set *set, const char *what, const char *path, cs_out **out,
                     cs_err *err);

/* The stream the output's content is written to (opened on first use: a special file is opened
 * here, which for a FIFO waits for a reader). Write errors are found by commit, or earlier with
 * cs_out_check. The stream belongs to the output: do not fclose it. */
cs_status cs_out_stream(cs_out *o, FILE **f, cs_err *err);

/* Flushes o's stream and reports a write error so far (CS_EIO, naming the output). */
cs_status cs_out_check(cs_out *o, cs_err *err);

/* The path as given, and what the output is called. */
const char *cs_out_path(const cs_out *o);
const char *cs_out_what(const cs_out *o);
/* True when the target is written in place (a device, a FIFO, an inherited descriptor). */
bool cs_out_is_special(const cs_out *o);
/* The temporary file's name while there is one (regular targets before commit), else NULL. */
const char *cs_out_temp_path(const cs_out *o);

/* Finishes and commits every output of the set, all or nothing (see above). An output added
 * but never written becomes an empty file. After a commit, successful or not, the set only
 * awaits cs_out_set_destroy. */
cs_status cs_out_set_commit(cs_out_set *set, cs_err *err);

/* Removes every temporary file not committed, closes every stream and frees the set (NULL is
 * fine). Destroying without a commit is how a failed run discards its outputs. */
void cs_out_set_destroy(cs_out_set *set);

/* One file through a set of one: fill writes the content into f (returning an error discards
 * the file). What the writers of single files (cs_npy_write, ...) are built on. */
typedef cs_status (*cs_out_fill_fn)(FILE *f, void *ctx, cs_err *err);
cs_status cs_out_write_file(const char *what, const char *path, cs_out_fill_fn fill, void *ctx,
                            cs_err *err);

#endif
