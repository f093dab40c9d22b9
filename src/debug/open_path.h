/* What the user named when opening something, before any reader sees it: a
 * folder without a trace in it opens the one loadable it holds, and anything
 * dladbg cannot open gets a message saying which kinds it takes and what was
 * found instead (rather than the loadable reader's complaint about offsets). */
#ifndef DLADBG_OPEN_PATH_H
#define DLADBG_OPEN_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The kinds of input dladbg opens, as one phrase for messages. */
extern const char open_path_kinds[];

/* A folder that holds no input.txn and no single .cfg: *out receives the
 * only .nvdla file in it and the result is true; with none or several, false
 * with err saying what the folder holds.  Any other path is copied to *out
 * unchanged (true). */
bool open_path_resolve(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/* After the loadable reader refused path: when path does not look like a
 * loadable (no .nvdla name), err is rewritten to say what dladbg takes and
 * what the file holds, keeping the reader's message at the end. */
void open_path_explain(const char *path, char *err, size_t errlen);

#endif
