import SwurlCore
/// Renders an exchange's timing (`--timing`, `--timing=json`, the `m` letter of `--print`).
package enum TimingFormatter {
    /// Aligned lines for people.
    package static func text(_ t: ExchangeTiming) -> String {
        func ms(_ s: Double) -> String {
            let v = (s * 10_000).rounded() / 10
            return "\(v) ms"
        }
        let p = TimingPhases(t)
        // The phases are the final request's: over a connection an earlier hop opened it had
        // no DNS, connect or TLS of its own (a 0.0 ms there read as a connection, a `-` as no TLS).
        let reused = t.finalReusedConnection, none = t.finalWithoutNetwork
        var rows: [(String, String)] = [
            ("DNS lookup", reused || none ? "-" : ms(p.dns)),
            ("TCP connect", reused ? "- (connection reused)" : none ? "-" : ms(p.connect)),
            ("TLS handshake", reused || none ? "-" : p.tls.map(ms) ?? "-"),
            ("Waiting (TTFB)", ms(p.wait)),
            ("Transfer", ms(p.transfer)),
        ]
        if t.redirects > 0 { rows.append(("Redirects", "\(t.redirects) in \(ms(t.redirectTime))")) }
        if t.retries > 0 { rows.append(("Retries", "\(t.retries)")) }
        if t.redirects + t.retries > 0 { rows.append(("Connections", "\(t.newConnections) new")) }
        rows.append(("Total", ms(t.total)))
        if let cache = t.cache { rows.append(("Cache", cache)) }
        // A body the cache served has no speed (no transfer ran): its bytes alone.
        let speed = t.final.downloadSpeed > 0 || t.final.downloadedBytes == 0 ? " at \(ProgressBar.bytes(t.final.downloadSpeed))/s" : ""
        rows.append(("Downloaded", "\(ProgressBar.bytes(t.final.downloadedBytes))" + speed))
        if t.final.uploadedBytes > 0 {
            rows.append(("Uploaded", "\(ProgressBar.bytes(t.final.uploadedBytes)) at \(ProgressBar.bytes(t.final.uploadSpeed))/s"))
        }
        if let address = t.final.remoteAddress {
            let host = address.contains(":") ? "[\(address)]" : address
            rows.append(("Remote address", "\(host):\(t.final.remotePort)" + (t.final.httpVersion.map { " (HTTP/\($0))" } ?? "")))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 + "\n" }.joined()
    }

    /// One JSON object on one line; times in seconds.
    package static func json(_ t: ExchangeTiming) -> String {
        func num(_ s: Double) -> String {
            let micros = Int64((max(0, s) * 1_000_000).rounded())
            let frac = String(micros % 1_000_000)
            return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
        }
        func str(_ s: String?) -> String {
            guard let s else { return "null" }
            // The escaping rule of every JSON string swurl writes.
            var out: [UInt8] = []
            JSONValue.writeString(s, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        let p = TimingPhases(t)
        let fields: [(String, String)] = [
            ("status", t.status.map { String($0) } ?? "null"),
            ("dns", num(p.dns)), ("connect", num(p.connect)), ("tls", num(p.tls ?? 0)), ("wait", num(p.wait)),
            ("transfer", num(p.transfer)), ("redirect", num(t.redirectTime)), ("total", num(t.total)),
            ("redirects", String(t.redirects)), ("retries", String(t.retries)),
            ("size_download", String(t.final.downloadedBytes)), ("size_upload", String(t.final.uploadedBytes)),
            ("size_header", String(t.final.headerBytes)),
            ("speed_download", String(t.final.downloadSpeed)), ("speed_upload", String(t.final.uploadSpeed)),
            ("remote_ip", str(t.final.remoteAddress)), ("remote_port", String(t.final.remotePort)),
            ("http_version", str(t.final.httpVersion)), ("new_connections", String(t.newConnections)),
            ("connection_reused", t.finalReusedConnection ? "true" : "false"),
            ("cache", str(t.cache)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}\n"
    }
}
