#include "cnetlink.h"
#include <linux/if_link.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

unsigned cnl_event_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
}

int cnl_open(unsigned groups) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -errno;
    struct sockaddr_nl sa;
    memset(&sa, 0, sizeof sa);
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* Sends `req` to the kernel and reads replies into `buf` until the one answering it (same
   sequence number) arrives: 0 with *reply pointing at it when it has type `type` and at least
   `minlen` bytes; an NLMSG_ERROR of 0 (an ACK, nothing found) gives -`none`, any other error its
   negative errno. Events and stale replies on the socket are skipped. */
static int cnl_request(int fd, struct nlmsghdr *req, unsigned short type, size_t minlen, int none,
                       char *buf, size_t size, struct nlmsghdr **reply) {
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) return -errno;
    for (;;) {
        ssize_t n = recv(fd, buf, size, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        int len = (int)n;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_seq != req->nlmsg_seq) continue;  // an event or a stale reply
            if (h->nlmsg_type == NLMSG_ERROR) {
                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) return -EPROTO;
                struct nlmsgerr *err = (struct nlmsgerr *)NLMSG_DATA(h);
                return err->error == 0 ? -none : err->error;
            }
            if (h->nlmsg_type != type) continue;
            if (h->nlmsg_len < NLMSG_LENGTH(minlen)) return -EPROTO;
            *reply = h;
            return 0;
        }
    }
}

/* oif > 0: the route out of that interface (an IPv6 link-local address's zone), as ip route get ADDR oif IF. */
int cnl_route_get(int fd, int family, const unsigned char *addr, int addrlen, int oif, struct cnl_route *out) {
    if ((family == AF_INET && addrlen != 4) || (family == AF_INET6 && addrlen != 16)) return -EINVAL;
    memset(out, 0, sizeof *out);
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        char attrs[64];
    } req;
    memset(&req, 0, sizeof req);
    static unsigned seq = 0;
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
    req.h.nlmsg_type = RTM_GETROUTE;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    req.h.nlmsg_seq = ++seq;
    req.r.rtm_family = (unsigned char)family;
    req.r.rtm_dst_len = (unsigned char)(addrlen * 8);
    struct rtattr *rta = (struct rtattr *)(((char *)&req) + NLMSG_ALIGN(req.h.nlmsg_len));
    rta->rta_type = RTA_DST;
    rta->rta_len = RTA_LENGTH(addrlen);
    memcpy(RTA_DATA(rta), addr, (size_t)addrlen);
    req.h.nlmsg_len = NLMSG_ALIGN(req.h.nlmsg_len) + RTA_ALIGN(rta->rta_len);
    if (oif > 0) {
        rta = (struct rtattr *)(((char *)&req) + NLMSG_ALIGN(req.h.nlmsg_len));
        rta->rta_type = RTA_OIF;
        rta->rta_len = RTA_LENGTH(sizeof(int));
        memcpy(RTA_DATA(rta), &oif, sizeof(int));
        req.h.nlmsg_len = NLMSG_ALIGN(req.h.nlmsg_len) + RTA_ALIGN(rta->rta_len);
    }

    char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
    struct nlmsghdr *h = NULL;
    int rc = cnl_request(fd, &req.h, RTM_NEWROUTE, sizeof(struct rtmsg), ENOENT, buf, sizeof buf, &h);
    if (rc != 0) return rc;
    struct rtmsg *r = (struct rtmsg *)NLMSG_DATA(h);
    out->type = r->rtm_type;
    out->linkdown = (r->rtm_flags & RTNH_F_LINKDOWN) != 0;
    int alen = (int)RTM_PAYLOAD(h);
    for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        size_t dlen = RTA_PAYLOAD(a);
        switch (a->rta_type) {
        case RTA_OIF:
            if (dlen >= sizeof(int)) memcpy(&out->oif, RTA_DATA(a), sizeof(int));
            break;
        case RTA_GATEWAY:
            if (dlen == (size_t)addrlen) { memcpy(out->gateway, RTA_DATA(a), dlen); out->has_gateway = 1; }
            break;
        case RTA_PREFSRC:
            if (dlen == (size_t)addrlen) { memcpy(out->prefsrc, RTA_DATA(a), dlen); out->has_prefsrc = 1; }
            break;
        default:
            break;
        }
    }
    return 0;
}

int cnl_link_get(int fd, int ifindex, struct cnl_link *out) {
    if (ifindex <= 0) return -ENODEV;
    memset(out, 0, sizeof *out);
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } req;
    memset(&req, 0, sizeof req);
    static unsigned seq = 0x40000000u;
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    req.h.nlmsg_type = RTM_GETLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    req.h.nlmsg_seq = ++seq;
    req.i.ifi_family = AF_UNSPEC;
    req.i.ifi_index = ifindex;

    char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
    struct nlmsghdr *h = NULL;
    int rc = cnl_request(fd, &req.h, RTM_NEWLINK, sizeof(struct ifinfomsg), ENODEV, buf, sizeof buf, &h);
    if (rc != 0) return rc;
    struct ifinfomsg *info = (struct ifinfomsg *)NLMSG_DATA(h);
    out->flags = info->ifi_flags;
    int alen = (int)IFLA_PAYLOAD(h);
    for (struct rtattr *a = IFLA_RTA(info); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type != IFLA_LINKINFO) continue;
        int ilen = (int)RTA_PAYLOAD(a);
        for (struct rtattr *k = (struct rtattr *)RTA_DATA(a); RTA_OK(k, ilen); k = RTA_NEXT(k, ilen)) {
            if (k->rta_type != IFLA_INFO_KIND) continue;
            size_t klen = RTA_PAYLOAD(k);
            if (klen >= sizeof out->kind) klen = sizeof out->kind - 1;
            memcpy(out->kind, RTA_DATA(k), klen);
            out->kind[klen] = 0;
        }
    }
    return 0;
}

int cnl_drain_events(int fd) {
    char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
    int count = 0;
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return count;
            // ENOBUFS: events were lost; the caller re-evaluates anyway.
            if (errno == ENOBUFS) { count++; continue; }
            return -errno;
        }
        if (n == 0) return count;
        int len = (int)n;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len); h = NLMSG_NEXT(h, len)) {
            switch (h->nlmsg_type) {
            case RTM_NEWLINK: case RTM_DELLINK: case RTM_NEWADDR: case RTM_DELADDR:
            case RTM_NEWROUTE: case RTM_DELROUTE:
                count++;
                break;
            default:
                break;
            }
        }
    }
}
