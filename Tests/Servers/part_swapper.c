/* Puts a symbolic link in place of a download's `.part` the moment the file's attributes
 * change (inotify IN_ATTRIB on its directory: swurl drops the `.part`'s extended attributes
 * just before it sets the file's mode and renames it), as a user who may write the directory
 * could. Usage: part_swapper DIR PART LINK (names inside DIR); prints "swapped" when it did.
 * For DownloadHardeningTests, which checks that the link's target keeps its mode. */
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    int fd = inotify_init();
    if (fd < 0 || inotify_add_watch(fd, argv[1], IN_ATTRIB) < 0) return 1;
    char part[4096], link[4096];
    snprintf(part, sizeof part, "%s/%s", argv[1], argv[2]);
    snprintf(link, sizeof link, "%s/%s", argv[1], argv[3]);
    char events[4096] __attribute__((aligned(8)));
    for (;;) {
        ssize_t n = read(fd, events, sizeof events);
        if (n <= 0) return 1;
        for (char *p = events; p < events + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if (e->len > 0 && strcmp(e->name, argv[2]) == 0 && rename(link, part) == 0) {
                puts("swapped");
                return 0;
            }
            p += sizeof *e + e->len;
        }
    }
}
