import SwurlSecurity

/// `--resolve HOST:PORT:ADDR[,ADDR…]` entries as libcurl 7.88 reads them (lib/hostip.c,
/// Curl_loadhostpairs): each entry goes into the DNS cache under HOST:PORT, so a later entry for
/// the same HOST:PORT replaces an earlier one; `+HOST` is the same entry (one that times out);
/// `*` stands for any host on that port and is looked up only when no entry names the host.
/// One reading for every place that needs to know where a request will connect.
package enum ResolveEntries {
    /// The addresses (without IPv6 brackets, in the entry's order) libcurl connects to for
    /// `host` (without brackets) on `port`; nil when no entry answers for it.
    package static func addresses(forHost host: String, port: Int, in entries: [String]) -> [String]? {
        var named: [String]?
        var wildcard: [String]?
        let key = host.lowercased()
        for entry in entries {
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, Int(parts[1]) == port else { continue }
            let name = (parts[0].hasPrefix("+") ? parts[0].dropFirst() : parts[0]).lowercased()
            let addresses = parts[2].split(separator: ",").map { HostName.bare(String($0)) }
            if name == "*" { wildcard = addresses } else if HostName.bare(name) == key { named = addresses }
        }
        return named ?? wildcard
    }
}
