import SwurlCore

extension CertificateReport.Entry {
    /// The report's view of one certificate.
    init(_ c: Certificate) {
        self.init(subject: c.subject, issuer: c.issuer, subjectAlternativeNames: c.subjectAlternativeNames,
                  notBefore: c.notBefore, notAfter: c.notAfter, daysLeft: c.daysLeft, expired: c.isExpired,
                  notYetValid: c.isNotYetValid, key: c.keyDescription, fingerprint: c.fingerprint, pin: c.pin,
                  selfIssued: c.isSelfIssued, der: c.der)
    }
}

extension CertificateReport {
    /// The report of one handshake's inspection.
    package init(url: String, host: String, inspection: CertificateInspection, pinsGiven: Bool) {
        self.init(url: url, host: host, tls: inspection.tls, presented: inspection.presented.map(Entry.init),
                  verifiedPath: inspection.verifiedPath.map { $0.map(Entry.init) }, chainError: inspection.chainError,
                  hostMatches: inspection.hostMatches, pinsGiven: pinsGiven, pinError: inspection.pinError)
    }
}
