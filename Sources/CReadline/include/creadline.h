#ifndef SWURL_CREADLINE_H
#define SWURL_CREADLINE_H
#include <stdio.h>
#include <readline/readline.h>

/*
 * GNU readline for `swurl repl`, loaded when the REPL starts on a terminal rather than at every
 * start of swurl (see readline_loader.c). Each function is the readline call of the same name
 * without the `sw_rl_` prefix; call sw_rl_load first.
 */

/* Loads libreadline.so.8 once. Returns 0, or -1 with sw_rl_load_error() saying why. */
int sw_rl_load(void);
const char *sw_rl_load_error(void);

/* The settings `swurl repl` makes before the first prompt; out may be NULL (keep stdout). */
void sw_rl_configure(const char *name, FILE *out, const char *word_breaks,
                     rl_completion_func_t *complete, rl_hook_func_t *signal_event, rl_getc_func_t *getc);
char *sw_rl_readline(const char *prompt);
/* rl_replace_line("", 0), rl_crlf, rl_on_new_line, rl_redisplay: an empty line on a fresh row. */
void sw_rl_clear_line(void);
/* Empties the line being edited, nothing more (the caller then ends it). */
void sw_rl_empty_line(void);
int sw_rl_in_modal_state(void);
/* Puts the terminal back as it was before readline() (raw mode, bracketed paste off). */
void sw_rl_restore_terminal(void);
/* Sets the terminal up for readline again and redraws the prompt and line (after `fg`). */
void sw_rl_resume_terminal(void);
/* The completion state: rl_attempted_completion_over, rl_completion_suppress_append, the line. */
void sw_rl_set_completion_over(int over);
void sw_rl_set_suppress_append(int suppress);
const char *sw_rl_line_buffer(void);
char **sw_rl_completion_matches(const char *text, rl_compentry_func_t *entry);

void sw_rl_stifle_history(int max);
int sw_rl_read_history(const char *path);
void sw_rl_add_history(const char *line);
int sw_rl_append_history(int count, const char *path);
int sw_rl_history_truncate_file(const char *path, int lines);
#endif
