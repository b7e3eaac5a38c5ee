#include "csupport.h"
#include <signal.h>
#include <string.h>
#include <termios.h>

static volatile sig_atomic_t sw_sigint_seen = 0;
static void sw_on_sigint(int sig) { (void)sig; sw_sigint_seen = 1; }
void sw_install_sigint_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sw_on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}
int sw_interrupted(void) { return sw_sigint_seen != 0; }
void sw_clear_interrupted(void) { sw_sigint_seen = 0; }

int sw_set_echo(int fd, int on) {
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    if (on) t.c_lflag |= ECHO; else t.c_lflag &= ~(tcflag_t)ECHO;
    return tcsetattr(fd, TCSAFLUSH, &t);
}
