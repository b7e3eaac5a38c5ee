#ifndef CSUPPORT_H
#define CSUPPORT_H
// Process-level helpers with no library behind them (signals, terminal modes), so that the
// core layer needs neither libcurl's nor OpenSSL's headers.

// SIGINT: a flag set by an async-signal-safe handler, polled by transfers.
void sw_install_sigint_handler(void);
int sw_interrupted(void);
// Forgets an earlier Ctrl-C (each exchange of a REPL or batch starts uninterrupted).
void sw_clear_interrupted(void);
// SIGTERM sets the same flag (the work stops on it as on Ctrl-C), and ends the process 3 s later
// if the stop has not (csupport.c).
void sw_install_sigterm_handler(void);
// Puts SIGTERM's default action back (when swurl's handler is installed) and, if a SIGTERM came
// meanwhile, ends the process by it: a SIGTERM from then on ends it at once.
void sw_settle_termination(void);
void sw_end_by_interrupt(void);
void sw_default_sigquit(void);
// One byte from fd for the line editor: SIGINT is blocked except while waiting in ppoll(2), so
// a Ctrl-C that comes after the prompt is drawn but before the wait starts is not lost.
// Returns the byte, -1 at the end of input or on an error, -2 when a Ctrl-C is pending, -3
// when a signal that ends the process came at the prompt (sw_prompt_signals), -4 at Ctrl-Z.
int sw_read_key(int fd);
// While the REPL's prompt edits a line on a terminal in raw mode: SIGTERM, SIGHUP, SIGQUIT,
// SIGALRM, SIGUSR1 and SIGUSR2 (unless ignored) only set a flag that sw_read_key returns as -3,
// so the terminal can be put back before the process ends by the signal
// (sw_end_by_prompt_signal), and SIGTSTP one it returns as -4 (sw_stop_at_prompt); 0 puts their
// actions back, and ends the process at once by one that came after the last key.
void sw_prompt_signals(int on);
// The same signals while a password is typed with echo off (no line editor, SIGTSTP left
// alone): they only set the flag sw_prompt_signal_came tells, so echo can go back on before
// the process ends by one (0 ends it then); SIGTERM and SIGHUP keep the orderly stop's handler
// once it is armed (they stop the prompt as Ctrl-C does).
void sw_hidden_prompt_signals(int on);
int sw_prompt_signal_came(void);
// Ctrl-Z at the prompt, once the terminal is put back: stops the process as SIGTSTP's default
// action does, and returns after SIGCONT (`fg`), the prompt's handler back in place.
void sw_stop_at_prompt(void);
// Ends the process by the signal that came at the prompt (after the terminal was put back).
void sw_end_by_prompt_signal(void);
// Switches terminal echo on fd off or on for password prompts (termios(3)); 0 on success.
int sw_set_echo(int fd, int on);
// copy_file_range(2) from in_fd at *in_off (advanced) to out_fd at its file position; the
// libc wrapper needs _GNU_SOURCE, which this file sets and Swift's Glibc module does not.
long sw_copy_file_range(int in_fd, long long *in_off, int out_fd, unsigned long len);
// rename(2) that never replaces: renameat2(2) with RENAME_NOREPLACE (which Swift's Glibc module
// does not export); -1 with errno EEXIST when `to` exists, EINVAL where the file system cannot.
int sw_rename_noreplace(const char *from, const char *to);
// wcwidth(3) (wchar.h's X/Open part, which Swift's Glibc module does not export): the columns a
// character takes in the calling thread's locale, -1 when it is not printable.
int sw_wcwidth(unsigned int c);

// Extended attributes (sys/xattr.h, which Swift's Glibc module does not export): the
// getxattr(2) family; -1 with errno on failure.
long sw_getxattr(const char *path, const char *name, void *value, unsigned long size);
long sw_fgetxattr(int fd, const char *name, void *value, unsigned long size);
int sw_fsetxattr(int fd, const char *name, const void *value, unsigned long size);
int sw_fremovexattr(int fd, const char *name);

// The magic number of the file system fd lies on (fstatfs(2)'s f_type, sys/vfs.h, which Swift's
// Glibc module does not export); -1 with errno on failure.
long sw_fs_type(int fd);
// The same for a path (statfs(2), links followed).
long sw_path_fs_type(const char *path);

// gzip, deflate and zstd decoding with zlib and libzstd (inflate.c; each opened with dlopen on
// first use). A decoder of one coding: gzip (also x-gzip; members one after another are read as
// one body), deflate (zlib-wrapped, or raw as some servers send it) or zstd (frames one after
// another; a window over 8 MiB refused, as RFC 9659 lets a decoder: libcurl 7.88 takes any, up
// to 128 MiB of memory a response). NULL when the library cannot be loaded.
typedef struct sw_inflater sw_inflater;
#define SW_INFLATE_ERROR (-1)
#define SW_INFLATE_STRAY (-2)
#define SW_CODING_DEFLATE 0
#define SW_CODING_GZIP 1
#define SW_CODING_ZSTD 2
sw_inflater *sw_inflater_new(int coding);
void sw_inflater_free(sw_inflater *s);
// The next compressed bytes; they must stay valid until sw_inflater_read returns 0.
void sw_inflater_input(sw_inflater *s, const void *bytes, unsigned long len);
// Decodes into out (at most cap bytes): the bytes made, 0 when the input is used up (or the
// stream ended and no bytes follow), SW_INFLATE_ERROR for bytes that are not the coding's,
// SW_INFLATE_STRAY for bytes after the end of the compressed data.
long sw_inflater_read(sw_inflater *s, void *out, unsigned long cap);
// Whether the compressed data reached its end (the last member's, for gzip; the last frame's, for zstd).
int sw_inflater_ended(const sw_inflater *s);
// The library decoding (`zlib`, `zstd`), for its words.
const char *sw_inflater_library(const sw_inflater *s);
// The library's words for the last SW_INFLATE_ERROR ("incorrect data check"), or NULL.
const char *sw_inflater_message(const sw_inflater *s);
#endif
