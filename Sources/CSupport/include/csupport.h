#ifndef CSUPPORT_H
#define CSUPPORT_H
// Process-level helpers with no library behind them (signals, terminal modes), so that the
// core layer needs neither libcurl's nor OpenSSL's headers.

// SIGINT: a flag set by an async-signal-safe handler, polled by transfers.
void sw_install_sigint_handler(void);
int sw_interrupted(void);
// Forgets an earlier Ctrl-C (each exchange of a REPL or batch starts uninterrupted).
void sw_clear_interrupted(void);
// One byte from fd for the line editor: SIGINT is blocked except while waiting in ppoll(2), so
// a Ctrl-C that comes after the prompt is drawn but before the wait starts is not lost.
// Returns the byte, -1 at the end of input or on an error, -2 when a Ctrl-C is pending.
int sw_read_key(int fd);
// Switches terminal echo on fd off or on for password prompts (termios(3)); 0 on success.
int sw_set_echo(int fd, int on);
#endif
