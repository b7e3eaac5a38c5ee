import SwurlOutput
import SwurlEngine
import SwurlResponseSerialization
import SwurlSecurity
/// Every option swurl understands, declared once. Parsing, `--help`, `man/swurl.1` and the
/// completions in `completions/` are all generated from this table.
package enum OptionTable {
    package static let all: [OptionSpec] = [
        // Request body
        OptionSpec(.json, short: ["j"], group: .body, commands: [.request, .download, .certs, .reach, .batch, .cache],
                   help: "Serialize data items as a JSON object (the default). Sets Content-Type: application/json and Accept: application/json, */*;q=0.5. With 'swurl certs', 'swurl reach' or 'swurl cache list': print the report as JSON."),
        OptionSpec(.form, short: ["f"], group: .body,
                   help: "Serialize data items as an urlencoded form (AFNetworking nesting: user[name]=Ann, tags[]=a). With GET, HEAD or DELETE the form goes into the query string. A file field (name@path) makes it multipart."),
        OptionSpec(.multipart, group: .body,
                   help: "Send data items and file fields as multipart/form-data, streamed from disk."),
        OptionSpec(.boundary, argument: .required("BOUNDARY"), group: .body,
                   help: "Use BOUNDARY as the multipart boundary instead of a random one. A field value that holds it after a line break is refused (64); a file's content is not checked."),
        OptionSpec(.plist, argument: .optional("FORMAT"), choices: ["xml", "binary"], group: .body,
                   help: "Serialize data items as a property list: xml (the default) or binary. Sets Content-Type: application/x-plist."),
        OptionSpec(.raw, argument: .required("TEXT"), group: .body,
                   help: "Send TEXT as the request body, as is."),
        OptionSpec(.chunked, group: .body,
                   help: "Send the body with chunked transfer encoding instead of a Content-Length (piped stdin then streams as it comes; without it, stdin shorter than 1 MiB is read first and sent with its length)."),
        OptionSpec(.ignoreStdin, short: ["I"], group: .body,
                   help: "Do not read the body from stdin by itself: an item that names stdin (@- for the whole body, name@- for a multipart file field) still reads it. Without -I, stdin is read only when a method that carries a body is given (not GET, HEAD, OPTIONS, TRACE) or the item @- asks for it, and not with data items (a warning then says piped input was not sent)."),
        // Output
        OptionSpec(.print, short: ["p"], argument: .required("WHAT"), group: .output,
                   help: "What to print: H request headers, B request body, h response headers, b response body, m meta (timing, sizes, remote address). Default: hb on a terminal, b otherwise; HB with --offline."),
        OptionSpec(.headers, short: ["h"], group: .output, help: "Print the response headers (adds h to -b, --print)."),
        OptionSpec(.body, short: ["b"], group: .output, help: "Print the response body (adds b to -h, --print)."),
        OptionSpec(.verbose, short: ["v"], group: .output,
                   help: "Print the request as sent and the response (--print=HBhb); every hop with --follow; -vv adds m."),
        OptionSpec(.pretty, argument: .required("STYLE"), choices: PrettyMode.allCases.map(\.rawValue), group: .output,
                   help: "all (colours and formatting, the default on a terminal), colors (the heads coloured, the body as sent: bodies are coloured only when formatted), format, or none (the default otherwise)."),
        OptionSpec(.output, short: ["o"], argument: .required("FILE"), completion: .file, group: .output,
                   help: "Write the output to FILE instead of stdout ('-' is stdout). FILE is replaced only when the transfer succeeds and the body is accepted (--accept-type, --decode); a status --check-status rejects still replaces it, as HTTPie writes it, since that body explains the error (exit 3, 4 or 5). A directory is refused before sending. The name is used byte for byte."),
        OptionSpec(.offline, group: .output, commands: [.request, .repl],
                   help: "Build the request and print the exact bytes it would send to the server; send nothing. Through an http proxy, libcurl writes the request line with the absolute URL and adds Proxy-Authorization (--proxy USER:PASS@) and Proxy-Connection, and --http2 on an http:// URL adds libcurl's upgrade (Connection: Upgrade, HTTP2-Settings; Upgrade: h2c; HTTP2-Settings); those are not shown, and a Proxy-Authorization item, shown among the headers, then goes to the proxy alone (to the server when no HTTP proxy applies: none set, a host NO_PROXY bypasses, or a SOCKS proxy)."),
        OptionSpec(.curl, group: .output, commands: [.request],
                   help: "Print the equivalent curl command (long options one per line, shell-quoted) and send nothing. Running it sends the same method, URL, headers and body; what curl cannot express the same way is listed on stderr as 'swurl: warning: curl cannot ...'. A URL holding [ ] { } gets --globoff (curl would glob it). Multipart parts are written for curl's -F grammar (paths and filenames double-quoted); a part it cannot express exactly (a name that is empty or holds '=', a type holding ',' or ';filename=', ';headers=', ';encoder=', blanks at its ends or no major/minor start) is refused with exit 64 naming the part, rather than printed as a command that sends something else."),
        OptionSpec(.all, group: .output,
                   help: "With --follow, print every hop (intermediate requests and responses), not just the final one (-v and a --print with H or B do so already); in raw output an intermediate body is followed by a line break and a blank line, as in HTTPie's -v."),
        OptionSpec(.pem, group: .output, commands: [.certs],
                   help: "Print the certificates as PEM instead of the report: those the server presented, leaf first, then those of the verified path it did not send (its anchor, an intermediate from the trust store), each after its subject= and issuer= lines. Save the one to trust for --pin-cert FILE (a file of several makes each an anchor)."),
        OptionSpec(.timing, argument: .optional("FORMAT"), choices: TimingFormat.allCases.map(\.rawValue), group: .output,
                   help: "Print the timing breakdown on stderr after the response: DNS, connect, TLS, time to first byte, transfer, redirects, total, sizes, speeds and the remote address, from libcurl's counters. DNS, connect, TLS and the first byte are the final request's (after redirects and retries; '-' over a connection an earlier request opened, connection_reused in JSON); new_connections counts every request's. --timing (or --timing=text) prints aligned lines; --timing=json prints one JSON object (times in seconds, and the final response's status, null when none came)."),
        OptionSpec(.har, argument: .required("FILE"), completion: .file, group: .output, commands: [.request, .download, .batch, .repl],
                   help: "Write an HTTP Archive 1.2 file of every request sent: one entry per redirect hop and retry, with the request (headers, query, the text of text bodies up to 1 MiB, other bodies by size), the response (status, headers, cookies, content size and type), timings from libcurl's counters (blocked, dns, connect, ssl, send, wait, receive; -1 where not applicable), the server's address and a number per connection. Authorization, Proxy-Authorization, Cookie and Set-Cookie values and URL passwords (and a user name given alone; also in Location, Content-Location and Referer values) are written as ****. The file is written whole or not at all (beside FILE, renamed over it; a link is followed, never replaced), also when a request fails (its entry has status 0 and an _error); batch writes all its lines into one file, the REPL rewrites it after each request. FILE - is stdout (refused where the response or a batch's results go there)."),
        OptionSpec(.harBodies, group: .output, commands: [.request, .download, .batch, .repl],
                   help: "With --har: also record the text of response bodies (text types, valid UTF-8, up to 1 MiB each); other bodies are recorded by size."),
        OptionSpec(.harSecrets, group: .output, commands: [.request, .download, .batch, .repl],
                   help: "With --har: keep credential and cookie values and URL passwords (or user names given alone) in the file instead of ****. Anyone who reads the file can then use them."),
        OptionSpec(.quiet, short: ["q"], group: .output, commands: [.request, .download, .batch],
                   help: "No progress bar, no download summary and no retry notices on stderr (errors are still shown). Given twice (-qq, on the command line or a REPL line), warnings and notes are silenced too, as in HTTPie."),
        // Downloads
        OptionSpec(.download, short: ["d"], group: .download,
                   help: "Save the body to a file: -o FILE, else the name from Content-Disposition, else the URL's last path segment (plus an extension for the Content-Type); never the name of a redirect target. Data goes to NAME.part, renamed when complete; an existing file gets a -1, -2 suffix. Shows a progress bar on a terminal. Implies --follow; a 4xx or 5xx status exits 4 or 5 and writes nothing, unless --accept-status lists it (then its body is saved)."),
        OptionSpec(.continue, short: ["c"], group: .download,
                   help: "With --download, resume a partial download (NAME.part, or the -o file) with a Range request and If-Range (the validator kept with the .part); starts over when the server ignores the range or the file changed. Without -o, only a NAME.part this URL left is taken."),
        OptionSpec(.overwrite, group: .download,
                   help: "With --download, replace an existing file instead of choosing a new name (also a file named by the server's Content-Disposition: give -o FILE to choose it yourself)."),
        OptionSpec(.limitRate, argument: .required("RATE"), group: .download, commands: [.request, .download, .batch],
                   help: "Limit the transfer speed in each direction to RATE bytes per second; K, M and G suffixes (100K, 2M) are powers of 1024; 0 is no limit (as in curl)."),
        // Batch
        OptionSpec(.parallel, argument: .required("N"), group: .batch,
                   help: "With 'swurl batch': run N requests at once (1 to 1024, default 16) on one libcurl multi handle; also the most connections opened per host. The lines share connections, the DNS cache and one cookie jar (cookies matched on the URL's host); a line with its own --resolve, --proxy, --unix-socket, Host header, Proxy-Authorization item, HTTP version, pins or --cacert-add gets its own, and one with other TLS options of its own (-k, --cacert, --cert, or a --no- of one) a connection of its own, on HTTP/1.1."),
        OptionSpec(.jsonl, group: .batch,
                   help: "With 'swurl batch': print one JSON object per request (line, method, url, status, http_version, time_total, time_first_byte, size, error, exit) instead of a text line."),
        OptionSpec(.outputDir, argument: .required("DIR"), completion: .directory, group: .batch,
                   help: "With 'swurl batch': write each response body to DIR/LINE.body (LINE: the input line number), whole or not at all; a failing line writes nothing."),
        OptionSpec(.nameTemplate, argument: .required("TEMPLATE"), group: .batch,
                   help: "With 'swurl batch --output-dir': name each body file from TEMPLATE instead of LINE.body, e.g. '{line}-{host}{path}'. Placeholders: {line}, {host}, {port}, {path} (of the line's URL as typed, never a redirect target), {method}, {status}. A / or \\ in a value becomes _, and the name is sanitized like a download name (no control or bidirectional characters, no leading dot, never . or ..). When a name is taken by an earlier line of the same batch, the line number goes in before the extension (a.json, a-7.json): no body replaces another."),
        OptionSpec(.order, argument: .required("ORDER"), choices: ["completion", "input"], group: .batch,
                   help: "With 'swurl batch': print results as requests finish (completion, the default) or in input order (input; only results are held back, never bodies)."),
        OptionSpec(.failFast, group: .batch,
                   help: "With 'swurl batch': start no new request after the first failing line; the running ones finish."),
        OptionSpec(.report, argument: .required("FILE.html"), completion: .file, group: .batch,
                   help: "With 'swurl batch': write an HTML report to FILE when the batch ends: lines, successes, failures and their reasons, requests per second, latency percentiles, bytes, a status histogram and a waterfall of the lines on one time axis (queued, retries, redirects, DNS, connect, TLS, waiting, receiving), failures marked. One self-contained file (no external scripts, styles or fonts); the first 2000 lines are drawn, later ones aggregated. Written atomically; FILE - is stdout, after the results."),
        OptionSpec(.junit, argument: .required("FILE"), completion: .file, group: .batch,
                   help: "With 'swurl batch': write JUnit XML to FILE when the batch ends, one test case per line (name: line number, method and URL; time in seconds) with a failure (type 'exit N' and the message) for a failing line. Written atomically; FILE - is stdout, after the results."),
        // Authentication
        OptionSpec(.auth, short: ["a"], argument: .required("USER[:PASS]"), group: .auth,
                   help: "Credentials for the first URL's origin only (never sent to another origin on a redirect). Without :PASS, swurl asks for the password without echo on the terminal (/dev/tty when stdin is a pipe carrying the body, as curl and HTTPie do). With --auth-type bearer, the token."),
        OptionSpec(.authType, short: ["A"], argument: .required("TYPE"), choices: ["basic", "digest", "bearer"], group: .auth,
                   help: "How credentials are sent: basic (the default), digest (also with a user and password from the URL or netrc), or bearer (Authorization: Bearer TOKEN, from --auth)."),
        OptionSpec(.session, argument: .required("NAME|PATH"), completion: .file, group: .auth, commands: [.request, .download],
                   help: "Use and update a session: header items (not Content-*, If-*, Host or credentials), --auth credentials (sent only to the origin they were first used with) and cookies (kept by libcurl's cookie engine, each sent only to the host or domain that set it). A NAME is bound to the request's host and port: $XDG_CONFIG_HOME/swurl/sessions/HOST_PORT/NAME.json (default ~/.config); a value with a / is a file path. Items on the command line override the session and update it. Files are 0600 in 0700 directories; concurrent runs merge their changes. A file that is not yours or root's, that others can write, or in a directory others can write without the sticky bit is refused (exit 65), and a new one is never made there. See SESSION FILES in the man page."),
        OptionSpec(.sessionReadOnly, argument: .required("NAME|PATH"), completion: .file, group: .auth, commands: [.request, .download],
                   help: "Use a session like --session but never write it."),
        OptionSpec(.ignoreNetrc, group: .auth,
                   help: "Do not read credentials from ~/.netrc (or $NETRC). By default swurl looks up each hop's host there when no --auth is given; a default entry is used for the first URL's host only; a URL user without a password (http://alice@host/) takes the password of the entry with that login. A file another user could have changed (not yours or root's, writable by group or others) is not used, with a warning."),
        OptionSpec(.style, short: ["s"], argument: .required("STYLE"), choices: ThemeStyle.allCases.map(\.rawValue), group: .output,
                   help: "Colour scheme: auto (the default: mid-tones readable on dark and light backgrounds, 256 colours or truecolor when COLORTERM or TERM say so), basic (the 16 ANSI colours), dark, light, or mono (bold and underline only). NO_COLOR and TERM=dumb turn colours off, unless --pretty=all or --pretty=colors is given."),
        // Response
        OptionSpec(.checkStatus, group: .response,
                   help: "Exit with 3, 4 or 5 when the response status is 3xx, 4xx or 5xx. The body is still shown."),
        OptionSpec(.acceptStatus, argument: .required("CODES"), group: .response,
                   help: "Acceptable status codes and ranges, e.g. 200-299,304; any other status exits by class (3, 4, 5; 8 for 1xx, 2xx and 600-999). The body is still shown."),
        OptionSpec(.acceptType, argument: .required("TYPES"), group: .response,
                   help: "Acceptable media types, e.g. application/json,text/*; another Content-Type (or none, with a body) exits 8 and the body is shown undecoded. Types are compared without parameters (charset=...)."),
        OptionSpec(.decode, argument: .required("DECODER"), choices: DecoderChoice.allCases.map(\.rawValue), group: .response,
                   help: "How to show the body: auto (the default: by Content-Type, then by the first bytes), json, xml, plist, image (a one-line summary), text (charset converted on a terminal) or raw. An explicit json, xml, plist or image is strict: a body it cannot decode exits 8 (in a batch, that line fails with 8). Piped output stays the raw bytes unless --pretty=format is given."),
        OptionSpec(.sortKeys, group: .response, commands: [.request, .download, .repl],
                   help: "Sort JSON object keys in formatted output (a terminal, or --pretty=format): piped output stays the bytes as received, as with HTTPie's --sorted. Reads the whole document into memory first, up to 32 MiB of body (a larger one is shown as sent), and its tree takes 15 to 40 times the body's size in memory (a 30 MB body: 0.4 to 1.2 GB); the default formatter streams in constant memory."),
        OptionSpec(.dropNulls, group: .response, commands: [.request, .download, .repl],
                   help: "Remove null-valued keys and null array elements from JSON, recursively (AFNetworking's removesKeysWithNullValues; emptied containers are kept), in formatted output (a terminal, or --pretty=format): piped output stays the bytes as received. Reads the whole document into memory first, as --sort-keys does: up to 32 MiB of body, 15 to 40 times that in memory."),
        OptionSpec(.stream, short: ["S"], group: .response, commands: [.request, .download, .repl],
                   help: "Show each chunk as soon as it arrives (event streams, long polls, JSON Lines) instead of holding back the first megabyte to check it."),
        OptionSpec(.plistAs, argument: .required("FORMAT"), choices: ["xml", "json"], group: .response, commands: [.request, .download, .repl],
                   help: "Show property lists (XML or binary) as an XML plist (the default) or as JSON; dates become ISO 8601, data base64. A property list is read whole, up to 16 MiB of body (a larger one is shown as sent), its values taking some 20 times that in memory."),
        // Network
        OptionSpec(.follow, short: ["F", "L"], group: .network, commands: [.request, .download, .batch], help: "Follow redirects."),
        OptionSpec(.maxRedirects, argument: .required("N"), group: .network, commands: [.request, .download, .batch],
                   help: "Follow at most N redirects (default 30); exit 6 when there are more."),
        OptionSpec(.timeout, argument: .required("SECONDS"), group: .network,
                   help: "Give up when connecting, or when no data moves, for SECONDS (decimals allowed); exit 2."),
        OptionSpec(.defaultScheme, argument: .required("SCHEME"), choices: ["http", "https"], group: .network,
                   commands: Set(CommandName.allCases).subtracting([.certs]),
                   help: "The scheme for URLs given without one (default http; swurl certs always speaks https and does not take it). 'swurl cache clear' reads a prefix without a scheme with it, as the request's URL was."),
        OptionSpec(.connectTimeout, argument: .required("SECONDS"), group: .network,
                   help: "Give up connecting after SECONDS (decimals allowed; default: --timeout); exit 2."),
        OptionSpec(.retry, argument: .required("N"), group: .network, commands: [.request, .download, .batch],
                   help: "Try again up to N times on connection failures, timeouts and 408, 429, 500, 502, 503 and 504 responses, waiting with exponential backoff and jitter (each wait at most 120 s, or --retry-delay when longer), or as long as Retry-After says (at most 300 s, or that cap when longer). Only idempotent methods unless --retry-all-methods. Each retry is reported on stderr."),
        OptionSpec(.retryDelay, argument: .required("SECONDS"), group: .network, commands: [.request, .download, .batch],
                   help: "The first wait before a retry (default 1; 0 retries at once, unlike curl's 0, its default); each further wait doubles."),
        OptionSpec(.retryMaxTime, argument: .required("SECONDS"), group: .network, commands: [.request, .download, .batch],
                   help: "Stop retrying once SECONDS have passed since the first attempt (a retry whose wait, a Retry-After's too, would pass it is not made; a note says so)."),
        OptionSpec(.retryAllMethods, group: .network, commands: [.request, .download, .batch],
                   help: "Retry POST, PATCH and other methods that are not idempotent too."),
        OptionSpec(.http1_1, group: .network, commands: [.request, .download, .batch], help: "Speak HTTP/1.1 only."),
        OptionSpec(.http2, group: .network, commands: [.request, .download, .batch],
                   help: "Ask for HTTP/2 (ALPN on https, an upgrade on http). By default swurl offers HTTP/2 on https where libcurl supports it."),
        OptionSpec(.http2PriorKnowledge, group: .network, commands: [.request, .download, .batch],
                   help: "Speak HTTP/2 straight away, without ALPN or upgrade."),
        OptionSpec(.pathAsIs, group: .network, commands: [.request, .download, .batch, .repl],
                   help: "Send the URL's path as given: dot segments (/../, /./) are not squashed, in the URL and in redirect targets (as curl's and HTTPie's --path-as-is)."),
        OptionSpec(.proxy, argument: .required("URL"), group: .network, commands: [.request, .download, .certs, .batch],
                   help: "Send requests through this proxy (http://, socks4://, socks4a://, socks5://, socks5h://; https:// targets are tunnelled, TLS end to end). Without it swurl uses http_proxy, HTTPS_PROXY and ALL_PROXY; hosts in NO_PROXY go direct either way (as in curl, NO_PROXY also bypasses --proxy); --proxy '' (empty) uses none of them. Proxies spoken to over TLS (https://) are refused."),
        OptionSpec(.unixSocket, argument: .required("PATH"), completion: .file, group: .network, commands: [.request, .download, .certs, .batch],
                   help: "Connect to the Unix domain socket PATH instead of the URL's host (no proxy: --proxy with it is refused, the proxy variables are not used; -4/-6 are refused)."),
        OptionSpec(.resolve, argument: .required("HOST:PORT:ADDR"), group: .network, commands: [.request, .download, .certs, .reach, .batch],
                   help: "Connect to ADDR for HOST:PORT instead of resolving it (repeatable; ADDR is one or more IP addresses joined by ',', IPv6 in brackets or not; the entry holds for that PORT only); --wait-for-network and 'swurl reach' use it too."),
        OptionSpec(.ipv4, short: ["4"], group: .network, help: "Connect over IPv4 only (an IPv6 address in the URL, or a --resolve entry for it with IPv6 addresses only, is refused)."),
        OptionSpec(.ipv6, short: ["6"], group: .network, help: "Connect over IPv6 only (an IPv4 address in the URL, or a --resolve entry for it with IPv4 addresses only, is refused)."),
        OptionSpec(.maxHeaders, argument: .required("N"), group: .network, commands: [.request, .download, .batch],
                   help: "Fail when a response has more than N header fields (default: no limit, as curl and HTTPie; 0 means no limit). A response head is always limited to 256 KiB (over HTTP/2, libcurl 7.88 takes about 128 KiB)."),
        OptionSpec(.waitForNetwork, argument: .optional("SECONDS"), group: .network, commands: [.request, .download, .batch],
                   help: "Before sending, wait until the URL's host is reachable: its name resolves, the kernel has a route and the port accepts a TCP connection. Woken by link, address and route changes (rtnetlink) and by a connect retry backing off from 0.1 to 2 seconds. Gives up after SECONDS (default 60) with exit 2. Waits for the proxy instead when the request goes through one (--proxy, or http_proxy, HTTPS_PROXY, ALL_PROXY unless NO_PROXY names the host)."),
        OptionSpec(.watch, group: .network, commands: [.reach],
                   help: "With 'swurl reach': keep running and print a line (with --json, a JSON line) with a timestamp each time the verdict changes, re-checking only when links, addresses or routes change. Ctrl-C ends it (by SIGINT: 130 in a shell); --timeout bounds it (exit 2)."),
        OptionSpec(.maxFilesize, argument: .required("SIZE"), group: .network, commands: [.request, .download, .batch],
                   help: "Stop with exit 8 once the response body, after decoding its Content-Encoding, passes SIZE bytes (K, M, G suffixes); a resumed download counts the whole file, the bytes on disk included. An announced size over SIZE is refused before anything is written; what was written is not left looking complete. Guards against compression bombs."),
        // Cache (RFC 9111, private; docs/cache.md)
        OptionSpec(.cache, argument: .optional("DIR"), completion: .directory, group: .cache,
                   commands: [.request, .download, .batch, .repl, .cache],
                   help: "Use the private HTTP cache in DIR (default $XDG_CACHE_HOME/swurl/http, ~/.cache/swurl/http): a fresh stored response is served without touching the network (with an Age header), a stale one is revalidated with If-None-Match/If-Modified-Since, and GET responses that RFC 9111 allows are stored (heads and bodies as libcurl delivered them). Credentials, the request's other header fields (an API key in X-Api-Key too; not Accept or User-Agent), cookies, the session and the TLS policy are part of the key; responses fetched with -k are never stored. A directory it makes is 0700, entries 0600 (one others can write is refused). AFNetworking's UseProtocolCachePolicy. See docs/cache.md (/usr/share/doc/swurl/docs/cache.md when installed)."),
        OptionSpec(.noCache, group: .cache,
                   help: "Do not use the cache for this run (beats a config file's --cache)."),
        OptionSpec(.refresh, group: .cache,
                   help: "Revalidate a stored response even when it is fresh (AFNetworking's ReloadRevalidatingCacheData); implies --cache."),
        OptionSpec(.cacheOnly, group: .cache,
                   help: "Serve a stored response however old (unless it says no-cache, or is stale and says must-revalidate), or answer 504 Gateway Timeout, never touching the network, whatever the method (ReturnCacheDataDontLoad, like only-if-cached); implies --cache."),
        OptionSpec(.staleOK, group: .cache,
                   help: "When the network fails (connection, DNS, timeout), serve a stored response however old, unless it says must-revalidate or no-cache (ReturnCacheDataElseLoad when offline); implies --cache."),
        OptionSpec(.cacheMax, argument: .required("SIZE"), group: .cache, commands: [.request, .download, .batch, .repl, .cache],
                   help: "The most bytes the cache may take (default 200M; K, M, G suffixes); least recently used entries are removed past it."),
        // TLS and pinning (enforced inside the TLS handshake; see SecurityPolicy)
        OptionSpec(.pinPubkey, argument: .required("PIN"), completion: .file, group: .tls,
                   help: "Trust the server only if a key of its verified certificate path matches PIN: sha256//BASE64 (several joined by ';') or a PEM/DER file of public keys or of one certificate (a chain is refused). Repeatable. With -k only the leaf's key counts. A plain http URL under a pin is refused (7). 'swurl certs URL' prints the pins."),
        OptionSpec(.pinCert, argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Trust the certificates in FILE (PEM or DER, several allowed) as anchors and require one in the verified path; a pinned self-signed certificate works without -k. With --pin-pubkey too, both must match: a pinned certificate and a pinned key. A plain http URL under a pin is refused (7). Repeatable."),
        OptionSpec(.pinScope, argument: .required("SCOPE"), choices: ["any", "leaf", "chain"], group: .tls,
                   help: "Which certificates of the verified path must match a pin: any (the default), leaf, or chain (every one)."),
        OptionSpec(.insecure, short: ["k"], group: .tls,
                   help: "Do not verify the certificate chain. Without pins the host name is not checked either (a warning says so); pins are still enforced, against the leaf only."),
        OptionSpec(.verifyHost, group: .tls,
                   help: "Check the host name (DNS name or IP address) against the certificate inside the handshake (the default, also with -k and pins). -k --verify-host without a pin is refused."),
        OptionSpec(.noVerifyHost, group: .tls,
                   help: "Do not check the host name against the certificate."),
        OptionSpec(.cacert, argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Trust the CA certificates in FILE (PEM) instead of the system's (as curl does); to trust both, use --cacert-add FILE instead. A file without a PEM certificate is refused before connecting (exit 65)."),
        OptionSpec(.capath, argument: .required("DIR"), completion: .directory, group: .tls,
                   help: "Trust the CA certificates in DIR (OpenSSL hashed directory, see c_rehash) instead of the system's."),
        OptionSpec(.cacertAdd, argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Trust the CA certificates in FILE (PEM or DER) in addition to the system's (or those of --cacert/--capath). Repeatable."),
        OptionSpec(.cert, argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Client certificate for mutual TLS (PEM; add its intermediates after it; may hold the key too). Presented to the first URL's origin only: a redirect to another origin connects without it."),
        OptionSpec(.key, argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Private key for --cert (PEM). An encrypted key asks for its password on a terminal (not with --curl or --offline, which send nothing: the printed curl command asks when it runs)."),
        OptionSpec(.keyPassword, argument: .required("PASSWORD"), group: .tls,
                   help: "Password of an encrypted --key (visible to other local users in the process list; prefer the prompt)."),
        OptionSpec(.tlsMin, argument: .required("VERSION"), choices: ["1.2", "1.3"], group: .tls,
                   help: "Lowest TLS version to accept: 1.2 (the default) or 1.3."),
        OptionSpec(.tlsMax, argument: .required("VERSION"), choices: ["1.2", "1.3"], group: .tls,
                   help: "Highest TLS version to offer: 1.2 or 1.3 (the default)."),
        OptionSpec(.ciphers, argument: .required("LIST"), group: .tls,
                   help: "OpenSSL cipher list, ':'-separated; TLS 1.3 suite names (TLS_AES_128_GCM_SHA256, ...) set the TLS 1.3 suites. With a pin, anonymous suites (aNULL: no certificate to check the pin against) are always left out."),
        // Other
        OptionSpec(.noConfig, group: .other,
                   help: "Do not read the config file of default options ($SWURL_CONFIG, else $XDG_CONFIG_HOME/swurl/config, default ~/.config/swurl/config). To drop one default instead, give --no-OPTION (--no-follow, --no-timeout): it drops OPTION's values from the config file, a batch's or the REPL's defaults and earlier on the command line. See CONFIG FILE in the man page."),
        OptionSpec(.help, group: .other, help: "Show a short help (the commands and the most used options) and exit; --help all (or swurl help all) shows every option, swurl help COMMAND (or swurl COMMAND --help) one command's options."),
        OptionSpec(.version, group: .other, help: "Show the versions of swurl, libcurl and OpenSSL and exit."),
        OptionSpec(.stopOnError, group: .other, commands: [.repl],
                   help: "With 'swurl repl' reading a script (stdin not a terminal): stop at the first line that fails and exit with its status."),
        OptionSpec(.generate, argument: .required("WHAT"), choices: ["man", "bash", "zsh", "fish", "exit-status"], group: .other,
                   hidden: true, help: "Print the man page, a completion script or the README's exit-status table, generated from this table."),
    ]

    /// The spec for a long name or alias (without dashes).
    package static func spec(long: String) -> OptionSpec? {
        all.first { $0.name == long || $0.aliases.contains(long) }
    }

    /// Whether a long option's name that is not swurl's may carry a secret as its value:
    /// curl's spellings of credentials (`--user`, `--oauth2-bearer`, `--pass`, `--cookie`; swurl
    /// spells them `-a`, an item or `--key-password`) and misspellings of a password option
    /// that no guess names (`--password`, `--pasword`, `--basic-auth`), in any case. A REPL line
    /// with one is kept out of the history, a config file line's value masked in its error.
    static func mayCarrySecret(unknown name: some StringProtocol) -> Bool {
        let lower = name.lowercased()
        return ["user", "pass", "word", "pw", "auth", "bearer", "token", "secret", "cred", "cookie", "key"].contains { lower.containsText($0) }
    }

    /// The spec for a one-letter option.
    package static func spec(short: Character) -> OptionSpec? {
        all.first { $0.shorts.contains(short) }
    }

    /// The options that appear in documentation.
    package static var documented: [OptionSpec] { all.filter { !$0.hidden } }

    /// Options that only qualify another (`--pin-scope` how a pin is checked, `--all` how
    /// followed redirects are shown, `--continue` how a download starts): as a default (the
    /// config file's, a batch's, the REPL's) each waits for one of its partners, and a request
    /// without any leaves it out (`dropWaitingQualifiers`). Given on a one-shot command line
    /// alone, it is still a usage error, naming what it needs.
    static let qualifiers: [Option: [Option]] = [
        .pinScope: [.pinPubkey, .pinCert], .all: [.follow], .harBodies: [.har], .harSecrets: [.har],
        .continue: [.download], .overwrite: [.download], .boundary: [.multipart, .form], .authType: [.auth],
        .keyPassword: [.key, .cert], .key: [.cert], .nameTemplate: [.outputDir],
    ]

    /// Drops from `args` (defaults with a request's own options over them) each qualifier that
    /// the request's own options (`own`) do not give and whose partners `args` lacks.
    static func dropWaitingQualifiers(_ args: inout ParsedArguments, own: ParsedArguments) {
        // Until none is left to drop: a dropped qualifier may be another's partner (`--key`,
        // the partner of `--key-password`, waits for `--cert`).
        var dropped = true
        while dropped {
            dropped = false
            for (option, partners) in qualifiers where args.has(option) && !own.has(option) && !partners.contains(where: { args.has($0) }) {
                // Digest also takes its user and password from the URL or netrc: dropped, it left
                // them to go as Basic, in the clear.
                if option == .authType, args.value(.authType) == AuthType.digest.rawValue { continue }
                args.options[option] = nil
                dropped = true
            }
        }
    }

    /// Options whose every occurrence counts (the others: the last one wins): completion
    /// offers them again after one was given.
    static let repeatable: Set<Option> = [.resolve, .pinPubkey, .pinCert, .cacertAdd, .verbose, .quiet]

    /// Drops from `merged` (`defaults` with a later request's own options, `own`, over them)
    /// each qualifier of the defaults that describes a value `own` replaced without giving a
    /// qualifier of its own: `-A` the credentials of `-a` (`-A bearer -a tok` as defaults, the
    /// config file's, a batch's or the REPL's, sent a typed `-a bob:pw` as a bearer token), and
    /// `--key-password` the key it unlocks (a typed `--key`, or a typed `--cert` where the
    /// defaults' key was in their `--cert`; a typed `--cert` for the defaults' `--key` keeps it).
    /// A default `-A` given without `-a` is the type of every request's credentials, and
    /// `-A digest` stays in any case: its user and password went as Basic, in the clear, as
    /// `dropWaitingQualifiers` keeps it too. The one rule for every place defaults meet a later choice.
    static func dropReplacedQualifiers(_ merged: inout ParsedArguments, defaults: ParsedArguments, own: ParsedArguments) {
        if defaults.has(.authType), !own.has(.authType), own.has(.auth), defaults.has(.auth),
           defaults.value(.authType) != AuthType.digest.rawValue {
            merged.options[.authType] = nil
        }
        if defaults.has(.keyPassword), !own.has(.keyPassword), replacesKey(defaults: defaults, own: own) {
            merged.options[.keyPassword] = nil
        }
    }

    /// Whether `own` gives a client key other than the defaults' (their `--key`, or the key in
    /// their `--cert` when they gave no `--key`): the defaults' key password is not its.
    static func replacesKey(defaults: ParsedArguments, own: ParsedArguments) -> Bool {
        defaults.has(.key) ? own.has(.key) : defaults.has(.cert) && (own.has(.cert) || own.has(.key))
    }

    /// Options that go together but whose later values (the command line's over the config's, a
    /// REPL or batch line's over its defaults') replace the defaults' of the whole group instead
    /// of adding to them: the pins, which narrow trust (a server passes when it matches any pin
    /// of either kind, so a typed pin was widened by the config's, of its own kind or the other).
    static let replacingGroups: [[Option]] = [[.pinPubkey, .pinCert]]

    /// Options that exclude each other, the one rule for every place defaults meet a later
    /// choice: an option on the command line drops the config's others of its set, a REPL or
    /// batch line's drops the defaults' (`--json` over `--form`). `--raw` is in none: it goes
    /// with any format. Sets may share an option (`--no-cache`).
    static let exclusiveSets: [[Option]] = [
        [.json, .form, .multipart, .plist],
        [.print, .headers, .body, .verbose],
        [.http1_1, .http2, .http2PriorKnowledge],
        [.ipv4, .ipv6],
        // A request goes through a proxy or to a socket, not both.
        [.proxy, .unixSocket],
        [.verifyHost, .noVerifyHost],
        [.session, .sessionReadOnly],
        [.cache, .noCache],
        [.noCache, .refresh, .cacheOnly],
        [.noCache, .staleOK],
        [.continue, .overwrite],
        // What the run does: print a curl command, save a file, or show the request unsent.
        [.curl, .download, .offline],
    ]
}
