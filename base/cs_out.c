/* cs_out — outputs written through temporary files and committed together (rules: cs_out.h). */
#include "base/cs_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symlink hops followed before a target is refused as a loop (Linux's own limit, MAXSYMLINKS). */
#define OUT_MAX_LINK_HOPS 40
/* Fresh temporary names tried before giving up (each taken one is skipped, never opened). */
#define OUT_MAX_NAME_TRIES 1000
#define BACKUP_SUFFIX_BYTES 64 /* ".PID-N.old" and its NUL */

struct cs_out {
  cs_out_set *set;
  char *what;      /* the output's name ("--trace") */
  char *path;      /* as given */
  char *label;     /* what messages start with: "WHAT PATH", or "PATH" when what is empty */
  char *target;    /* symlinks resolved */
  char *temp;      /* regular target: the temporary file while it exists under that name */
  char *dir;       /* regular target: its directory (fsync'd after the rename) */
  char *backup;    /* existing regular target: room for the name of a hard link to it, made
                    * during the commit for putting it back (allocated before: the commit
                    * allocates nothing, so it cannot lose that link to a lack of memory) */
  bool backed_up;  /* during commit: the link exists */
  bool special;    /* written in place */
  int alias_fd;    /* >= 0: the process's own descriptor (/dev/stdout, /dev/fd/N) */
  bool existed;    /* regular target: there was a file to replace */
  bool renamed;    /* during commit: the temporary file is now the target */
  dev_t dir_dev;   /* regular target: its directory, for spotting one file named twice */
  ino_t dir_ino;
  int fd;          /* the open file (-1: none) */
  FILE *f;         /* the stream over fd, once asked for */
};

struct cs_out_set {
  cs_out_hooks hooks;
  bool has_hooks;
  cs_out **outs;
  size_t n, cap;
  unsigned next_name; /* the counter in temporary names */
  bool finished;      /* committed or failed a commit */
};

/* ---- signals: the hooks' calls are made with the termination signals blocked ------------ */

static void block_signals(const cs_out_set *s, sigset_t *old) {
  if (!s->has_hooks) return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGQUIT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const cs_out_set *s, const sigset_t *old) {
  if (s->has_hooks) pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Removes o's temporary file (telling the hooks first). Safe to call when there is none. */
static void remove_temp(cs_out *o) {
  if (!o->temp) return;
  sigset_t old;
  block_signals(o->set, &old);
  if (o->set->has_hooks) o->set->hooks.temp_removed(o->set->hooks.ctx, o->temp);
  unlink(o->temp);
  restore_signals(o->set, &old);
  free(o->temp);
  o->temp = NULL;
}

/* ---- paths -------------------------------------------------------------------------------- */

static char *dup_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static char *dup_s(const char *s) { return dup_n(s, strlen(s)); }

/* The directory part of path ("." when there is none, "/" for "/x"). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return dup_s(".");
  if (slash == path) return dup_s("/");
  return dup_n(path, (size_t)(slash - path));
}

static const char *base_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The descriptor a path names by itself, or -1: /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N. On Linux these are symlinks into /proc that would resolve to whatever the
 * descriptor refers to (a file the shell opened, "pipe:[123]"); the descriptor is what the user
 * means. */
static int fd_alias(const char *path) {
  if (strcmp(path, "/dev/stdout") == 0) return 1;
  if (strcmp(path, "/dev/stderr") == 0) return 2;
  static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    size_t n = strlen(dirs[i]);
    if (strncmp(path, dirs[i], n) != 0) continue;
    const char *p = path + n;
    if (*p < '0' || *p > '9') return -1;
    long fd = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
      fd = fd * 10 + (*p - '0');
      if (fd > INT_MAX) return -1;
    }
    return *p ? -1 : (int)fd;
  }
  return -1;
}

/* Follows path's symlinks to what they name: *target (malloc'd) is the first name that is not
 * a symlink (it may not exist: lstat's errno is then in *lerr, else 0 and *st is filled), or an
 * fd alias met on the way (*alias >= 0). */
static cs_status resolve(const cs_out *o, char **target, int *alias, struct stat *st, int *lerr,
                         cs_err *err) {
  char *cur = dup_s(o->path);
  *alias = -1;
  for (int hop = 0; cur; hop++) {
    if ((*alias = fd_alias(cur)) >= 0 || hop > OUT_MAX_LINK_HOPS) break;
    if (lstat(cur, st) != 0) {
      *lerr = errno;
      *target = cur;
      return CS_OK;
    }
    if (!S_ISLNK(st->st_mode)) {
      *lerr = 0;
      *target = cur;
      return CS_OK;
    }
    char link[PATH_MAX];
    ssize_t k = readlink(cur, link, sizeof link - 1);
    if (k < 0) {
      cs_status r = cs_err_set(err, CS_EIO, "%s: cannot read the symlink %s: %s", o->label,
                               cur, strerror(errno));
      free(cur);
      return r;
    }
    link[k] = '\0';
    char *next;
    if (link[0] == '/') {
      next = dup_s(link);
    } else { /* relative to the link's own directory */
      char *dir = dir_of(cur);
      size_t n = dir ? strlen(dir) + 1 + (size_t)k + 1 : 0;
      next = dir ? malloc(n) : NULL;
      if (next) snprintf(next, n, "%s/%s", dir, link);
      free(dir);
    }
    free(cur);
    cur = next;
  }
  if (!cur) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", o->label);
  if (*alias >= 0) {
    free(cur);
    *target = NULL;
    return CS_OK;
  }
  free(cur);
  return cs_err_set(err, CS_EIO, "%s: more than %d symlinks to follow (a loop?)", o->label,
                    OUT_MAX_LINK_HOPS);
}

/* ---- adding an output --------------------------------------------------------------------- */

cs_status cs_out_set_create(const cs_out_hooks *hooks, cs_out_set **out, cs_err *err) {
  *out = NULL;
  cs_out_set *s = calloc(1, sizeof *s);
  if (!s) return cs_err_set(err, CS_ENOMEM, "no host memory for the outputs");
  if (hooks && hooks->temp_created && hooks->temp_removed) {
    s->hooks = *hooks;
    s->has_hooks = true;
  }
  *out = s;
  return CS_OK;
}

static void free_out(cs_out *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  else if (o->fd >= 0) close(o->fd);
  remove_temp(o);
  free(o->what);
  free(o->path);
  free(o->label);
  free(o->target);
  free(o->dir);
  free(o->backup);
  free(o);
}

/* An inherited descriptor must be open for writing. */
static cs_status check_alias(const cs_out *o, cs_err *err) {
  int fl = fcntl(o->alias_fd, F_GETFL);
  if (fl < 0)
    return cs_err_set(err, CS_EIO, "%s: descriptor %d is not open", o->label, o->alias_fd);
  if ((fl & O_ACCMODE) == O_RDONLY)
    return cs_err_set(err, CS_EIO, "%s: descriptor %d is open for reading only", o->label,
                      o->alias_fd);
  return CS_OK;
}

/* The directory a new or replaced file goes in must exist and take new files. */
static cs_status check_dir(cs_out *o, cs_err *err) {
  char *dir = dir_of(o->target);
  if (!dir) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", o->label);
  struct stat st;
  cs_status r = CS_OK;
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT)
      r = cs_err_set(err, CS_EIO, "%s: directory %s does not exist", o->label, dir);
    else
      r = cs_err_set(err, CS_EIO, "%s: directory %s: %s", o->label, dir,
                     strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    r = cs_err_set(err, CS_EIO, "%s: %s is not a directory", o->label, dir);
  } else if (access(dir, W_OK | X_OK) != 0) {
    r = cs_err_set(err, CS_EIO, "%s: cannot create files in directory %s: %s", o->label,
                   dir, strerror(errno));
  } else {
    o->dir_dev = st.st_dev;
    o->dir_ino = st.st_ino;
  }
  if (r == CS_OK) o->dir = dir;
  else free(dir);
  return r;
}

/* Creates the temporary file next to the target: "TARGET.PID-N.tmp", or "DIR/.cubesim-PID-N.tmp"
 * when the target's name is too long to extend. O_EXCL|O_NOFOLLOW: a name that is taken (by a
 * file, or a symlink planted there) is skipped, never opened. */
static cs_status create_temp(cs_out *o, const struct stat *old, cs_err *err) {
  const char *dir = o->dir;
  size_t n = strlen(o->target) + 64;
  char *name = malloc(n);
  if (old && name) o->backup = malloc(strlen(o->target) + BACKUP_SUFFIX_BYTES);
  if (!name || (old && !o->backup)) {
    free(name);
    return cs_err_set(err, CS_ENOMEM, "%s: no host memory", o->label);
  }
  mode_t mode = old ? old->st_mode & 07777 : 0666;
  bool short_name = false;
  int fd = -1, e = 0;
  sigset_t sigs;
  block_signals(o->set, &sigs);
  for (int tries = 0; fd < 0 && tries < OUT_MAX_NAME_TRIES; tries++) {
    unsigned k = o->set->next_name++;
    if (short_name)
      snprintf(name, n, "%s/.cubesim-%ld-%u.tmp", dir, (long)getpid(), k);
    else
      snprintf(name, n, "%s.%ld-%u.tmp", o->target, (long)getpid(), k);
    fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    e = fd < 0 ? errno : 0;
    if (fd < 0 && e == ENAMETOOLONG && !short_name) short_name = true;
    else if (fd < 0 && e != EEXIST) break;
  }
  bool refused = false;
  if (fd >= 0 && o->set->has_hooks && !o->set->hooks.temp_created(o->set->hooks.ctx, name)) {
    unlink(name);
    close(fd);
    fd = -1;
    refused = true;
  }
  restore_signals(o->set, &sigs);
  if (fd < 0) {
    cs_status r = refused ? cs_err_set(err, CS_EINVAL, "%s: too many outputs at once", o->label)
                          : cs_err_set(err, CS_EIO, "%s: cannot create the temporary file %s: %s",
                                       o->label, name, strerror(e ? e : EEXIST));
    free(name);
    return r;
  }
  o->temp = name;
  o->fd = fd;
  if (old) {
    /* the replaced file's owner (when allowed: root, or the same owner) and mode, exactly
     * (open's mode went through the umask; chown may clear set-id bits, so chmod comes last) */
    if (old->st_uid != geteuid() || old->st_gid != getegid())
      (void)!fchown(fd, old->st_uid, old->st_gid);
    (void)!fchmod(fd, mode);
  }
  return CS_OK;
}

/* Looks at the target and decides how it is written; creates the temporary file of a regular
 * one. */
static cs_status prepare(cs_out *o, cs_err *err) {
  struct stat st;
  int lerr = 0;
  cs_status r = resolve(o, &o->target, &o->alias_fd, &st, &lerr, err);
  if (r != CS_OK) return r;
  if (o->alias_fd >= 0) {
    o->special = true;
    return check_alias(o, err);
  }
  if (lerr && lerr != ENOENT && lerr != ENOTDIR) /* those two: check_dir says which part */
    return cs_err_set(err, CS_EIO, "%s: %s", o->label, strerror(lerr));
  if (!lerr) {
    if (S_ISDIR(st.st_mode))
      return cs_err_set(err, CS_EIO, "%s: is a directory", o->label);
    if (S_ISSOCK(st.st_mode))
      return cs_err_set(err, CS_EIO, "%s: is a socket (outputs go to files, FIFOs and devices)",
                        o->label);
    if (access(o->target, W_OK) != 0)
      return cs_err_set(err, CS_EIO, "%s: cannot write %s: %s", o->label, o->target,
                        strerror(errno));
    if (!S_ISREG(st.st_mode)) { /* FIFO, character or block device */
      o->special = true;
      return CS_OK;
    }
    o->existed = true;
  }
  r = check_dir(o, err);
  if (r != CS_OK) return r;
  for (size_t i = 0; i < o->set->n; i++) {
    const cs_out *p = o->set->outs[i];
    if (!p->special && p->dir_dev == o->dir_dev && p->dir_ino == o->dir_ino &&
        strcmp(base_of(p->target), base_of(o->target)) == 0)
      return cs_err_set(err, CS_EINVAL, "%s: the same file as %s", o->label, p->label);
  }
  return create_temp(o, o->existed ? &st : NULL, err);
}

cs_status cs_out_add(cs_out_set *set, const char *what, const char *path, cs_out **out,
                     cs_err *err) {
  if (out) *out = NULL;
  if (set->finished)
    return cs_err_set(err, CS_EINTERNAL, "%s %s: added to outputs already committed", what, path);
  if (!path || !*path) return cs_err_set(err, CS_EINVAL, "%s: an empty file name", what);
  if (set->n == set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 8;
    cs_out **grown = realloc(set->outs, cap * sizeof *grown);
    if (!grown) return cs_err_set(err, CS_ENOMEM, "%s %s: no host memory", what, path);
    set->outs = grown;
    set->cap = cap;
  }
  cs_out *o = calloc(1, sizeof *o);
  if (o) {
    o->set = set;
    o->fd = -1;
    o->alias_fd = -1;
    o->what = dup_s(what);
    o->path = dup_s(path);
    size_t n = strlen(what) + 1 + strlen(path) + 1;
    o->label = malloc(n);
    if (o->label) snprintf(o->label, n, "%s%s%s", what, *what ? " " : "", path);
  }
  if (!o || !o->what || !o->path || !o->label) {
    free_out(o);
    return cs_err_set(err, CS_ENOMEM, "%s %s: no host memory", what, path);
  }
  cs_status r = prepare(o, err);
  if (r != CS_OK) {
    free_out(o);
    return r;
  }
  set->outs[set->n++] = o;
  if (out) *out = o;
  return CS_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */

cs_status cs_out_stream(cs_out *o, FILE **f, cs_err *err) {
  *f = NULL;
  if (o->set->finished)
    return cs_err_set(err, CS_EINTERNAL, "%s: written after the commit", o->label);
  if (!o->f) {
    if (o->fd < 0) { /* a special file, opened only now */
      if (o->alias_fd >= 0) o->fd = fcntl(o->alias_fd, F_DUPFD_CLOEXEC, 3);
      else o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (o->fd < 0)
        return cs_err_set(err, cs_errno_status(errno, CS_EIO), "%s: cannot open: %s", o->label, strerror(errno));
    }
    o->f = fdopen(o->fd, "wb");
    if (!o->f) return cs_err_set(err, CS_ENOMEM, "%s: no host memory", o->label);
  }
  *f = o->f;
  return CS_OK;
}

cs_status cs_out_check(cs_out *o, cs_err *err) {
  if (!o->f) return CS_OK;
  errno = 0;
  if (fflush(o->f) == 0 && !ferror(o->f)) return CS_OK;
  int e = errno ? errno : EIO; /* a failure met by an earlier flush left only the error flag */
  return cs_err_set(err, CS_EIO, "%s: cannot write: %s", o->label, strerror(e));
}

const char *cs_out_path(const cs_out *o) { return o->path; }
const char *cs_out_what(const cs_out *o) { return o->what; }
bool cs_out_is_special(const cs_out *o) { return o->special; }
const char *cs_out_temp_path(const cs_out *o) { return o->temp; }

/* ---- commit ------------------------------------------------------------------------------- */

/* Flushes, syncs (regular files) and closes o. */
static cs_status finish(cs_out *o, cs_err *err) {
  cs_status r = cs_out_check(o, err);
  if (r == CS_OK && !o->special && fsync(o->fd) != 0)
    r = cs_err_set(err, CS_EIO, "%s: cannot write: %s", o->label, strerror(errno));
  int closed = o->f ? fclose(o->f) : o->fd >= 0 ? close(o->fd) : 0;
  if (closed != 0 && r == CS_OK)
    r = cs_err_set(err, CS_EIO, "%s: cannot write: %s", o->label, strerror(errno));
  o->f = NULL;
  o->fd = -1;
  return r;
}

/* A hard link to an existing target, so the rename over it can be undone ("TARGET.PID-N.old").
 * Without one (a file system without hard links) the rename is done all the same. */
static void make_backup(cs_out *o) {
  size_t n = strlen(o->target) + BACKUP_SUFFIX_BYTES;
  for (int tries = 0; tries < OUT_MAX_NAME_TRIES; tries++) {
    snprintf(o->backup, n, "%s.%ld-%u.old", o->target, (long)getpid(), o->set->next_name++);
    if (link(o->target, o->backup) == 0) {
      o->backed_up = true;
      return;
    }
    if (errno != EEXIST) break;
  }
}

/* Puts back the targets renamed so far: the old content from its link, or no file at all. */
static void roll_back(cs_out_set *s) {
  for (size_t i = 0; i < s->n; i++) {
    cs_out *o = s->outs[i];
    if (!o->renamed) continue;
    if (o->backed_up) {
      /* should putting it back fail, the link stays on disk: the old content is not lost */
      (void)rename(o->backup, o->target);
      o->backed_up = false;
    } else if (!o->existed) {
      unlink(o->target);
    }
    o->renamed = false;
  }
}

static void sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd); /* durability only: the renames are done and cannot fail any more */
    close(fd);
  }
}

cs_status cs_out_set_commit(cs_out_set *s, cs_err *err) {
  if (s->finished)
    return cs_err_set(err, CS_EINTERNAL, "outputs committed twice");
  s->finished = true;
  cs_status r = CS_OK;
  for (size_t i = 0; i < s->n; i++) {
    cs_err e;
    cs_status ri = finish(s->outs[i], &e);
    if (ri != CS_OK && r == CS_OK) {
      r = ri;
      if (err) *err = e;
    }
  }
  if (r != CS_OK) {
    for (size_t i = 0; i < s->n; i++) remove_temp(s->outs[i]);
    return r;
  }
  sigset_t sigs;
  block_signals(s, &sigs);
  for (size_t i = 0; i < s->n && r == CS_OK; i++) {
    cs_out *o = s->outs[i];
    if (o->special) continue;
    if (o->existed) make_backup(o);
    if (s->has_hooks) s->hooks.temp_removed(s->hooks.ctx, o->temp);
    if (rename(o->temp, o->target) != 0) {
      r = cs_err_set(err, CS_EIO, "%s: cannot rename %s over it: %s", o->label, o->temp,
                     strerror(errno));
      unlink(o->temp);
    } else {
      o->renamed = true;
    }
    free(o->temp);
    o->temp = NULL;
  }
  if (r != CS_OK) roll_back(s);
  for (size_t i = 0; i < s->n; i++) {
    cs_out *o = s->outs[i];
    if (o->backed_up) unlink(o->backup);
    o->backed_up = false;
  }
  restore_signals(s, &sigs);
  for (size_t i = 0; i < s->n; i++) remove_temp(s->outs[i]);
  if (r == CS_OK)
    for (size_t i = 0; i < s->n; i++)
      if (s->outs[i]->renamed) sync_dir(s->outs[i]->dir);
  return r;
}

void cs_out_set_destroy(cs_out_set *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) free_out(s->outs[i]);
  free(s->outs);
  free(s);
}

cs_status cs_out_write_file(const char *what, const char *path, cs_out_fill_fn fill, void *ctx,
                            cs_err *err) {
  cs_out_set *s;
  cs_status r = cs_out_set_create(NULL, &s, err);
  if (r != CS_OK) return r;
  cs_out *o;
  FILE *f;
  r = cs_out_add(s, what, path, &o, err);
  if (r == CS_OK) r = cs_out_stream(o, &f, err);
  if (r == CS_OK) r = fill(f, ctx, err);
  if (r == CS_OK) r = cs_out_set_commit(s, err);
  cs_out_set_destroy(s);
  return r;
}
