#define _GNU_SOURCE
#include "csupport.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <sys/xattr.h>
#include <sys/vfs.h>
#include <wchar.h>

static volatile sig_atomic_t sw_sigint_seen = 0;
// SIGTERM and SIGHUP (a closed terminal, a dropped SSH session) end the process after an orderly
// stop; Ctrl-C stops the exchange only.
static int sw_ends_process(int sig) { return sig == SIGTERM || sig == SIGHUP; }
// The last signal is remembered, except that a Ctrl-C after SIGTERM or SIGHUP leaves that one:
// the process still ends by it.
static void sw_on_sigint(int sig) { if (!sw_ends_process(sw_sigint_seen)) sw_sigint_seen = sig; }
// Installs `handler` for `sig`, with SIGINT, SIGTERM and SIGHUP blocked while it runs: one
// handler's check and store are never cut by another's.
static void sw_set_handler(int sig, void (*handler)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(sig, &sa, NULL);
}
// A SIGINT the parent set to be ignored stays ignored, as curl leaves it: a background job of a
// non-interactive shell (`swurl … &` in a script) is spared the terminal's Ctrl-C that way.
void sw_install_sigint_handler(void) {
    struct sigaction old;
    if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN) return;
    sw_set_handler(SIGINT, sw_on_sigint);
}
// The orderly stop after SIGTERM may not keep the process from ending: if it has not ended
// SW_TERM_GRACE seconds after the signal (a write blocked on a pipe nobody reads, on any
// thread), SIGALRM ends it by SIGTERM, as the default action would have at once (temporary
// files then stay, as they would have).
#define SW_TERM_GRACE 3
// Ends the process by `sig`'s default action (async-signal-safe: also from a handler).
static void sw_end_by_signal(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); // if the signal could not end it
}
static void sw_on_term_grace_over(int sig) { (void)sig; sw_end_by_signal(sw_sigint_seen == SIGHUP ? SIGHUP : SIGTERM); }
static volatile sig_atomic_t sw_term_grace_started = 0;
static void sw_on_sigterm(int sig) {
    sw_sigint_seen = sig;
    // From the first SIGTERM: a later one does not put the end off.
    if (sw_term_grace_started) return;
    sw_term_grace_started = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sw_on_term_grace_over;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(SW_TERM_GRACE);
}
void sw_install_sigterm_handler(void) {
    static const int ending[] = { SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++) {
        // A signal the parent set to be ignored stays ignored (nohup's SIGHUP).
        struct sigaction old;
        if (sigaction(ending[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sw_set_handler(ending[i], sw_on_sigterm);
    }
    // The grace's alarm must get through: a parent may have started us with SIGALRM blocked
    // (threads made later inherit this mask).
    sigset_t alarmSet;
    sigemptyset(&alarmSet);
    sigaddset(&alarmSet, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alarmSet, NULL);
}
int sw_interrupted(void) { return sw_sigint_seen != 0; }
// The Swift runtime's backtracer takes SIGQUIT (Ctrl-\) to print a crash report and wait for a
// key, while the transfer went on; swurl ends by it, as curl does (a shell says 131). One the
// parent set to be ignored stays ignored.
void sw_default_sigquit(void) {
    struct sigaction old;
    if (sigaction(SIGQUIT, NULL, &old) == 0 && old.sa_handler == SIG_IGN) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGQUIT, &sa, NULL);
}
// Ctrl-C stopped the work and its outputs are written: the process ends by SIGINT, as curl's
// does, so that a shell running it in a loop stops too (bash goes on after a child that merely
// exited 130); a shell still says 130. Only when SIGINT came and the handler is ours.
void sw_end_by_interrupt(void) {
    struct sigaction old;
    if (sw_sigint_seen != SIGINT || sigaction(SIGINT, NULL, &old) != 0 || old.sa_handler != sw_on_sigint) return;
    sw_end_by_signal(SIGINT);
}
void sw_clear_interrupted(void) { sw_sigint_seen = 0; }
void sw_settle_termination(void) {
    static const int ending[] = { SIGTERM, SIGHUP };
    int settled = 0;
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++) {
        struct sigaction old;
        if (sigaction(ending[i], NULL, &old) != 0 || old.sa_handler != sw_on_sigterm) continue;
        // Default first, then the check: a signal before the switch is seen here, one after it
        // ends the process by itself, so none is lost between them.
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(ending[i], &sa, NULL);
        settled = 1;
    }
    if (settled && sw_ends_process(sw_sigint_seen)) sw_end_by_signal(sw_sigint_seen);
}

int sw_set_echo(int fd, int on) {
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    if (on) t.c_lflag |= ECHO; else t.c_lflag &= ~(tcflag_t)ECHO;
    return tcsetattr(fd, TCSAFLUSH, &t);
}

// (SIGALRM, SIGUSR1 and SIGUSR2 too: by default they end the process as well, and left it with
// the terminal raw.)
static const int sw_prompt_ending[] = { SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2 };
#define SW_PROMPT_ENDING (sizeof sw_prompt_ending / sizeof sw_prompt_ending[0])
static volatile sig_atomic_t sw_prompt_signal = 0;
static int sw_prompt_caught[SW_PROMPT_ENDING];
static struct sigaction sw_prompt_saved[SW_PROMPT_ENDING];
static void sw_on_prompt_signal(int sig) { if (!sw_prompt_signal) sw_prompt_signal = sig; }

// Ctrl-Z at the prompt (SIGTSTP): a flag sw_read_key returns as -4, so that the terminal is put
// back before the process stops (sw_stop_at_prompt) and set up again after `fg`. Unless the
// shell ignores it (no job control).
static volatile sig_atomic_t sw_prompt_stop = 0;
static int sw_stop_caught = 0;
static struct sigaction sw_stop_saved;
static void sw_on_prompt_stop(int sig) { (void)sig; sw_prompt_stop = 1; }

void sw_stop_at_prompt(void) {
    sw_prompt_stop = 0;
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTSTP);
    pthread_sigmask(SIG_UNBLOCK, &stop, &old);
    raise(SIGTSTP);
    // Here after SIGCONT (`fg`).
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGTSTP, &ours, NULL);
}

static void sw_prompt_ending_signals(int on, int keep_ours);

void sw_prompt_signals(int on) {
    if (on) {
        sw_stop_caught = sigaction(SIGTSTP, NULL, &sw_stop_saved) == 0 && sw_stop_saved.sa_handler != SIG_IGN;
        if (sw_stop_caught) sw_set_handler(SIGTSTP, sw_on_prompt_stop);
    } else if (sw_stop_caught) {
        sigaction(SIGTSTP, &sw_stop_saved, NULL);
        sw_stop_caught = 0;
        sw_prompt_stop = 0;
    }
    sw_prompt_ending_signals(on, 0);
}

// Takes (on) or gives back the signals that end the process, for a prompt. With keep_ours, a
// signal handled by the orderly stop (SIGTERM and SIGHUP once armed, and its grace's SIGALRM)
// keeps that handler: it stops the prompt as Ctrl-C does.
static void sw_prompt_ending_signals(int on, int keep_ours) {
    for (size_t i = 0; i < SW_PROMPT_ENDING; i++) {
        int sig = sw_prompt_ending[i];
        if (on) {
            // Any action but "ignore": the default, or a handler of the runtime's (Swift's
            // backtracer takes SIGQUIT in a build with a shared runtime), put back afterwards.
            sw_prompt_caught[i] = sigaction(sig, NULL, &sw_prompt_saved[i]) == 0 && sw_prompt_saved[i].sa_handler != SIG_IGN
                && !(keep_ours && (sw_prompt_saved[i].sa_handler == sw_on_sigterm || sw_prompt_saved[i].sa_handler == sw_on_term_grace_over));
            if (sw_prompt_caught[i]) sw_set_handler(sig, sw_on_prompt_signal);
        } else if (sw_prompt_caught[i]) {
            // A handler set meanwhile stays: SIGTERM at the prompt started the orderly stop,
            // whose grace took SIGALRM (put back to the default, the grace's end came as
            // SIGALRM's: exit 142, not SIGTERM's).
            struct sigaction now;
            if (sigaction(sig, NULL, &now) != 0 || now.sa_handler == sw_on_prompt_signal) sigaction(sig, &sw_prompt_saved[i], NULL);
            sw_prompt_caught[i] = 0;
        }
    }
    // The old actions first, then the check: none is lost between them (readline has
    // returned, the terminal is as it was).
    if (!on && sw_prompt_signal) sw_end_by_prompt_signal();
}

void sw_hidden_prompt_signals(int on) { sw_prompt_ending_signals(on, 1); }
int sw_prompt_signal_came(void) { return sw_prompt_signal != 0; }

void sw_end_by_prompt_signal(void) { sw_end_by_signal(sw_prompt_signal ? sw_prompt_signal : SIGTERM); }

int sw_read_key(int fd) {
    // The signals the wait ends on are blocked but while waiting in ppoll: one that comes
    // between the check and the wait is not lost.
    sigset_t block, old, waiting;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTSTP);
    for (size_t i = 0; i < SW_PROMPT_ENDING; i++) sigaddset(&block, sw_prompt_ending[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    waiting = old;
    sigdelset(&waiting, SIGINT);
    sigdelset(&waiting, SIGTSTP);
    for (size_t i = 0; i < SW_PROMPT_ENDING; i++) sigdelset(&waiting, sw_prompt_ending[i]);
    int result = -1;
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    for (;;) {
        if (sw_prompt_signal) { result = -3; break; }
        if (sw_prompt_stop) { result = -4; break; }
        if (sw_sigint_seen) { result = -2; break; }
        int r = ppoll(&p, 1, NULL, &waiting);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        unsigned char c;
        ssize_t n = read(fd, &c, 1);
        if (n == 1) { result = c; break; }
        if (n < 0 && errno == EINTR) continue;
        break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return result;
}

long sw_fs_type(int fd) {
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) return -1;
    return (long)fs.f_type;
}

long sw_path_fs_type(const char *path) {
    struct statfs fs;
    if (statfs(path, &fs) != 0) return -1;
    return (long)fs.f_type;
}

long sw_copy_file_range(int in_fd, long long *in_off, int out_fd, unsigned long len) {
    off_t off = (off_t)*in_off;
    ssize_t n = copy_file_range(in_fd, &off, out_fd, NULL, (size_t)len, 0);
    *in_off = (long long)off;
    return (long)n;
}

int sw_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

long sw_getxattr(const char *path, const char *name, void *value, unsigned long size) {
    return (long)getxattr(path, name, value, size);
}
long sw_fgetxattr(int fd, const char *name, void *value, unsigned long size) {
    return (long)fgetxattr(fd, name, value, size);
}
int sw_fsetxattr(int fd, const char *name, const void *value, unsigned long size) {
    return fsetxattr(fd, name, value, size, 0);
}
int sw_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }

int sw_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }
