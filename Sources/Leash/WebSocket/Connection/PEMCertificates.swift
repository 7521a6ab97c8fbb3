import Foundation

/// Reads the certificates of a PEM file (the form `WebSocketAddress.additionalTrustedAuthorities`
/// names), for the platforms whose TLS takes certificates as DER (Network.framework).
package enum PEMCertificates {
    /// The DER bytes of each `CERTIFICATE` block in `pem`, in order; other blocks (keys) and
    /// text around the blocks are skipped, and a block that is not valid base64 is dropped.
    package static func der(inPEM pem: String) -> [Data] {
        var certificates: [Data] = []
        var base64: String?
        for line in pem.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                if let base64, let der = Data(base64Encoded: base64) { certificates.append(der) }
                base64 = nil
            } else if base64 != nil {
                base64? += trimmed
            }
        }
        return certificates
    }

    /// The certificates of the PEM file at `url`, or nil if it cannot be read or holds none.
    package static func der(inFile url: URL) -> [Data]? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let certificates = der(inPEM: String(decoding: data, as: UTF8.self))
        return certificates.isEmpty ? nil : certificates
    }
}
