/*
 * GNU readline, opened with dlopen when `swurl repl` starts on a terminal.
 *
 * Linked normally, libreadline and libtinfo are loaded and relocated at every start of swurl
 * (docs/performance.md) although only the interactive REPL uses them. The headers
 * still come from libreadline-dev, so the types and prototypes are readline's own; only the
 * addresses are looked up at run time, all at once in sw_rl_load.
 */
#include "creadline.h"
#include <dlfcn.h>
#include <locale.h>
#include <readline/history.h>
#include <stddef.h>

static int loaded = 0;
static const char *load_error = NULL;

static char *(*p_readline)(const char *);
static int (*p_rl_crlf)(void);
static int (*p_rl_on_new_line)(void);
static void (*p_rl_redisplay)(void);
static void (*p_rl_reset_screen_size)(void);
static void (*p_rl_cleanup_after_signal)(void);
static void (*p_rl_reset_after_signal)(void);
static int (*p_rl_forced_update_display)(void);
static void (*p_rl_replace_line)(const char *, int);
static char **(*p_rl_completion_matches)(const char *, rl_compentry_func_t *);
static void (*p_stifle_history)(int);
static int (*p_read_history)(const char *);
static void (*p_add_history)(const char *);
static int (*p_append_history)(int, const char *);
static int (*p_history_truncate_file)(const char *, int);

static const char **v_rl_readline_name;
static int *v_rl_catch_signals;
static FILE **v_rl_outstream;
static const char **v_rl_completer_word_break_characters;
static rl_completion_func_t **v_rl_attempted_completion_function;
static rl_hook_func_t **v_rl_signal_event_hook;
static rl_getc_func_t **v_rl_getc_function;
static int *v_rl_attempted_completion_over;
static int *v_rl_completion_suppress_append;
static char **v_rl_line_buffer;
static unsigned long *v_rl_readline_state;

#define RESOLVE(handle, target, name) \
    do { \
        *(void **)(&(target)) = dlsym((handle), (name)); \
        if ((target) == NULL) { load_error = "libreadline.so.8 lacks " name; return -1; } \
    } while (0)

int sw_rl_load(void) {
    if (loaded) return 0;
    void *h = dlopen("libreadline.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        load_error = dlerror();
        if (load_error == NULL) load_error = "cannot open libreadline.so.8";
        return -1;
    }
    RESOLVE(h, p_readline, "readline");
    RESOLVE(h, p_rl_crlf, "rl_crlf");
    RESOLVE(h, p_rl_on_new_line, "rl_on_new_line");
    RESOLVE(h, p_rl_redisplay, "rl_redisplay");
    RESOLVE(h, p_rl_reset_screen_size, "rl_reset_screen_size");
    RESOLVE(h, p_rl_cleanup_after_signal, "rl_cleanup_after_signal");
    RESOLVE(h, p_rl_reset_after_signal, "rl_reset_after_signal");
    RESOLVE(h, p_rl_forced_update_display, "rl_forced_update_display");
    RESOLVE(h, p_rl_replace_line, "rl_replace_line");
    RESOLVE(h, p_rl_completion_matches, "rl_completion_matches");
    RESOLVE(h, p_stifle_history, "stifle_history");
    RESOLVE(h, p_read_history, "read_history");
    RESOLVE(h, p_add_history, "add_history");
    RESOLVE(h, p_append_history, "append_history");
    RESOLVE(h, p_history_truncate_file, "history_truncate_file");
    RESOLVE(h, v_rl_readline_name, "rl_readline_name");
    RESOLVE(h, v_rl_catch_signals, "rl_catch_signals");
    RESOLVE(h, v_rl_outstream, "rl_outstream");
    RESOLVE(h, v_rl_completer_word_break_characters, "rl_completer_word_break_characters");
    RESOLVE(h, v_rl_attempted_completion_function, "rl_attempted_completion_function");
    RESOLVE(h, v_rl_signal_event_hook, "rl_signal_event_hook");
    RESOLVE(h, v_rl_getc_function, "rl_getc_function");
    RESOLVE(h, v_rl_attempted_completion_over, "rl_attempted_completion_over");
    RESOLVE(h, v_rl_completion_suppress_append, "rl_completion_suppress_append");
    RESOLVE(h, v_rl_line_buffer, "rl_line_buffer");
    RESOLVE(h, v_rl_readline_state, "rl_readline_state");
    loaded = 1;
    return 0;
}

const char *sw_rl_load_error(void) { return load_error != NULL ? load_error : "readline is not loaded"; }

void sw_rl_configure(const char *name, FILE *out, const char *word_breaks,
                     rl_completion_func_t *complete, rl_hook_func_t *signal_event, rl_getc_func_t *getc) {
    // The terminal's character set before the first prompt is measured: readline sets it in
    // its first rl_initialize, after that (a base URL with a non-ASCII character drew the first
    // prompt one column off per byte past the first).
    setlocale(LC_CTYPE, "");
    *v_rl_readline_name = name;
    *v_rl_catch_signals = 0;
    if (out != NULL) *v_rl_outstream = out;
    *v_rl_completer_word_break_characters = word_breaks;
    *v_rl_attempted_completion_function = complete;
    *v_rl_signal_event_hook = signal_event;
    *v_rl_getc_function = getc;
}

// A window resized while a request ran (readline saw no SIGWINCH then: it catches none, and
// swurl's getc retries on EINTR) is measured again before each prompt after the first.
char *sw_rl_readline(const char *prompt) {
    static int started = 0;
    if (started) p_rl_reset_screen_size();
    started = 1;
    return p_readline(prompt);
}

void sw_rl_clear_line(void) {
    p_rl_replace_line("", 0);
    p_rl_crlf();
    p_rl_on_new_line();
    p_rl_redisplay();
}

void sw_rl_empty_line(void) { p_rl_replace_line("", 0); }

// Whether readline is in the middle of something a key would continue: a history search, a
// numeric argument, the key after ESC or of a multi-key sequence, a vi motion. Ctrl-C must end
// that too (its abort key, C-g), or the next keys go on with it.
int sw_rl_in_modal_state(void) {
    const unsigned long modal = 0x0000010UL /* METANEXT */ | 0x0000080UL /* ISEARCH */ | 0x0000100UL /* NSEARCH */
        | 0x0004000UL /* COMPLETING: its --More-- pager takes C-g as q */
        | 0x0000200UL /* SEARCH */ | 0x0000400UL /* NUMERICARG */ | 0x0100000UL /* VIMOTION */
        | 0x0200000UL /* MULTIKEY */ | 0x0800000UL /* CHARSEARCH */;
    return (*v_rl_readline_state & modal) != 0;
}

void sw_rl_restore_terminal(void) { p_rl_cleanup_after_signal(); }

void sw_rl_resume_terminal(void) {
    p_rl_reset_after_signal();
    p_rl_forced_update_display();
}

void sw_rl_set_completion_over(int over) { *v_rl_attempted_completion_over = over; }
void sw_rl_set_suppress_append(int suppress) { *v_rl_completion_suppress_append = suppress; }
const char *sw_rl_line_buffer(void) { return *v_rl_line_buffer; }
char **sw_rl_completion_matches(const char *text, rl_compentry_func_t *entry) {
    return p_rl_completion_matches(text, entry);
}

void sw_rl_stifle_history(int max) { p_stifle_history(max); }
int sw_rl_read_history(const char *path) { return p_read_history(path); }
void sw_rl_add_history(const char *line) { p_add_history(line); }
int sw_rl_append_history(int count, const char *path) { return p_append_history(count, path); }
int sw_rl_history_truncate_file(const char *path, int lines) { return p_history_truncate_file(path, lines); }
