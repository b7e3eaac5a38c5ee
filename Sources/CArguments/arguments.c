/*
 * The command line for the swurl executable, without the Swift runtime's start-up scan.
 *
 * With the static Swift standard library, libswiftCore's CommandLine.cpp brings a static
 * constructor that finds argv by reading /proc/self/maps (every mapping of ~40 libraries, 24
 * reads, path formatting in the kernel) on every start. glibc already hands argc and argv to
 * the executable's init_array functions, so this file defines the two entry points the standard
 * library calls (`CommandLine.argc`, `unsafeArgv`, `arguments`) and captures them there. Because
 * the executable defines them, the linker never pulls CommandLine.cpp.o out of libswiftCore.a.
 * Only the `swurl` executable target links this file; tests keep the runtime's own.
 */
#include "carguments.h"
#include <stddef.h>

static char **sw_argv = NULL;
static int sw_argc = 0;
static char **sw_override_argv = NULL;
static int sw_override_argc = 0;

static void sw_capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL) {
        sw_argc = argc;
        sw_argv = argv;
    }
}

__attribute__((section(".init_array"), used))
static void (*const sw_capture_arguments_entry)(int, char **, char **) = sw_capture_arguments;

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    sw_override_argv = argv;
    sw_override_argc = argc;
}

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    static char *empty[] = { NULL };
    if (sw_override_argv != NULL) {
        *outArgLen = sw_override_argc;
        return sw_override_argv;
    }
    if (sw_argv == NULL) {
        *outArgLen = 0;
        return empty;
    }
    *outArgLen = sw_argc;
    return sw_argv;
}
