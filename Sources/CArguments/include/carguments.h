#ifndef SWURL_CARGUMENTS_H
#define SWURL_CARGUMENTS_H
/* See arguments.c: this target only replaces the Swift runtime's start-up argv lookup. */
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);
#endif
