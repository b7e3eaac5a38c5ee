#ifndef CNETLINK_H
#define CNETLINK_H
// rtnetlink for the reachability checks: Glibc's module exports neither NETLINK_ROUTE nor the
// RTM_*/RTMGRP_* constants, and the NLMSG_*/RTA_* helpers are macros, so the message walking
// lives here and Swift sees plain functions and one result struct.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

// The route the kernel would use for one destination (RTM_GETROUTE).
struct cnl_route {
    int oif;                    // output interface index, 0 when none
    int has_gateway;
    unsigned char gateway[16];  // network byte order; 4 bytes used for IPv4
    int has_prefsrc;
    unsigned char prefsrc[16];
    int type;                   // RTN_UNICAST, RTN_LOCAL, ...
    int linkdown;               // the route's device has no carrier (RTNH_F_LINKDOWN)
};

// One link's state (RTM_GETLINK), read from rtnetlink rather than /sys/class/net, which in a
// network namespace without its own sysfs describes another namespace's interfaces.
struct cnl_link {
    unsigned flags;             // IFF_UP, IFF_LOWER_UP, ...
    char kind[32];              // IFLA_LINKINFO's IFLA_INFO_KIND ("veth", "wireguard"), "" when none
};

// The multicast groups a watcher needs: links, addresses, IPv4 and IPv6 routes.
unsigned cnl_event_groups(void);
// Opens a NETLINK_ROUTE socket (close-on-exec) bound to `groups` (0: none).
// Returns the descriptor, or -errno.
int cnl_open(unsigned groups);
// Asks the kernel for the route to `addr` (4 or 16 bytes, family AF_INET or AF_INET6) on `fd`.
// Returns 0 and fills `out`, or -errno (e.g. -ENETUNREACH when there is no route).
int cnl_route_get(int fd, int family, const unsigned char *addr, int addrlen, int oif, struct cnl_route *out);
// Asks the kernel for the link with index `ifindex` on `fd`.
// Returns 0 and fills `out`, or -errno (-ENODEV when there is none).
int cnl_link_get(int fd, int ifindex, struct cnl_link *out);
// Reads every message waiting on an event socket without blocking.
// Returns how many link, address and route messages were read, or -errno.
int cnl_drain_events(int fd);
#endif
