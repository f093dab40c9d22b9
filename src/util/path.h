/* File-name helpers shared by the core and the UI. */
#ifndef DLADBG_PATH_H
#define DLADBG_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The last component of path, trailing slashes ignored ("traces/sanity1/"
 * -> "sanity1"); "/" stays "/". */
void path_last_component(const char *path, char *buf, size_t len);

/* Create the folder path and its missing parents (mode before the umask);
 * existing folders are fine.  0, or -1 with errno set. */
int path_make_dirs(const char *path, mode_t mode);

/* The command history file, $XDG_STATE_HOME/dladbg/history or
 * ~/.local/state/dladbg/history, its folder created; false (buf "") when
 * there is no home to keep it in or the folder cannot be made. */
bool path_history_file(char *buf, size_t len);

/* File-name completion: fn(ctx, candidate) for each entry of the folder that
 * word names whose name begins with the rest of word ("share/ex" offers
 * "share/examples/"); folders end in '/', dot files only when asked for with
 * a leading '.', "~/" stands for $HOME.  dirs_only: folders alone. */
void path_complete(const char *word, bool dirs_only, void (*fn)(void *ctx, const char *cand),
                   void *ctx);

#endif
