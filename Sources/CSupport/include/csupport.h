#ifndef CSUPPORT_H
#define CSUPPORT_H
// Process-level helpers with no library behind them (signals, terminal modes), so that the
// core layer needs neither libcurl's nor OpenSSL's headers.

// SIGINT: a flag set by an async-signal-safe handler, polled by transfers.
void sw_install_sigint_handler(void);
int sw_interrupted(void);
// Forgets an earlier Ctrl-C (each exchange of a REPL or batch starts uninterrupted).
void sw_clear_interrupted(void);
// Switches terminal echo on fd off or on for password prompts (termios(3)); 0 on success.
int sw_set_echo(int fd, int on);
#endif
