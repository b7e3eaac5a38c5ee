#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

extension CacheEntry {
    /// What listing an entry needs of its head (`swurl cache list`, `clear URL-PREFIX`,
    /// `prune`): the URL, the status and the fields freshness and age depend on. Read from the
    /// head's bytes by the grammar `decode` checks (`CacheEntry.scan`), so a head is summarised
    /// exactly when it would decode; only the URL becomes a string (`decode` makes two of every
    /// header field, which was a quarter of a listing's time).
    package struct Summary: Sendable {
        package var url: String
        /// Whether `url` is ASCII: such URLs sort by their bytes (`urlPrecedes`).
        package var urlIsASCII: Bool
        package var status: Int
        package var requestTime: Double
        package var responseTime: Double
        package var freshness: CacheRules.Freshness
        /// Whether it has a validator (`ETag` or `Last-Modified`) to revalidate with.
        package var hasValidator: Bool

        /// `a.url < b.url` (String order: Unicode canonical equivalence), by bytes when both
        /// are ASCII, where that order is the bytes' order.
        package static func urlPrecedes(_ a: Summary, _ b: Summary) -> Bool {
            guard a.urlIsASCII && b.urlIsASCII else { return a.url < b.url }
            var x = a.url, y = b.url
            return x.withUTF8 { p in
                y.withUTF8 { q in
                    let n = Swift.min(p.count, q.count)
                    if n > 0 {
                        let c = memcmp(p.baseAddress!, q.baseAddress!, n)
                        if c != 0 { return c < 0 }
                    }
                    return p.count < q.count
                }
            }
        }
    }

    /// The summary of head text (checked against its digest by the caller); nil exactly when
    /// `decode` gives nil.
    package static func summary(head b: UnsafeBufferPointer<UInt8>) -> Summary? {
        guard isUTF8(b) else { return nil }
        var url: Range<Int>?, method = false, requestTime: Double?, responseTime: Double?, status: Int?
        var cc = CacheControl(), hasValidator = false
        var date: Range<Int>?, expires: Range<Int>?, lastModified: Range<Int>?, age: Range<Int>?, expiresCount = 0
        func double(_ r: Range<Int>) -> Double? { Double(String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self)) }
        // A field name against a lower-case ASCII name in any case. None of these names is
        // what a non-ASCII name lower-cases to, so this is HTTPHeaders' comparison.
        func named(_ r: Range<Int>, _ lower: StaticString) -> Bool {
            guard r.count == lower.utf8CodeUnitCount else { return false }
            var k = 0
            for i in r {
                let c = b[i]
                if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != lower.utf8Start[k] { return false }
                k += 1
            }
            return true
        }
        let wellFormed = scan(b) { line in
            switch line.kind {
            case .header:
                let name = line.first
                switch name.count {
                case 3 where age == nil && named(name, "age"): age = line.second
                case 4 where named(name, "etag"): hasValidator = true
                case 4 where date == nil && named(name, "date"): date = line.second
                case 7 where named(name, "expires"):
                    expiresCount += 1
                    if expires == nil { expires = line.second }
                case 13 where named(name, "cache-control"): cc.add(bytes: UnsafeBufferPointer(rebasing: b[line.second]))
                case 13 where named(name, "last-modified"):
                    hasValidator = true
                    if lastModified == nil { lastModified = line.second }
                default: break
                }
            case .url: url = line.first
            case .vary: break
            case .method: method = true
            case .status: status = line.code
            case .requestTime: requestTime = double(line.first)
            case .responseTime: responseTime = double(line.first)
            }
        }
        guard wellFormed, let url, method, let requestTime, let responseTime, let status,
              CacheEntry.validTimes.contains(requestTime), CacheEntry.validTimes.contains(responseTime) else { return nil }
        func httpDate(_ r: Range<Int>) -> Double? { HTTPDate.parse(bytes: UnsafeBufferPointer(rebasing: b[r]), now: responseTime) }
        let urlBytes = UnsafeBufferPointer(rebasing: b[url])
        let freshness = CacheRules.Freshness(
            status: status, cacheControl: cc, date: date.flatMap(httpDate), expires: CacheRules.Freshness.expires(count: expiresCount, first: expires.flatMap(httpDate)),
            lastModified: lastModified.flatMap(httpDate),
            age: age.flatMap { CacheControl.deltaSeconds(String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self)) })
        return Summary(url: String(decoding: urlBytes, as: UTF8.self), urlIsASCII: urlBytes.allSatisfy { $0 < 0x80 },
                       status: status, requestTime: requestTime, responseTime: responseTime, freshness: freshness,
                       hasValidator: hasValidator)
    }
}
