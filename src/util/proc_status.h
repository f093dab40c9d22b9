/* This process's memory as Linux counts it (/proc/self/status), for
 * "info mem" and anything else that reports what the debugger costs. */
#ifndef DLADBG_PROC_STATUS_H
#define DLADBG_PROC_STATUS_H

/* A "Name:   N kB" field of /proc/self/status (VmHWM: the peak resident
 * set, VmRSS: the resident set now) in KiB; -1 without /proc or the field. */
long proc_status_kib(const char *field);

#endif
