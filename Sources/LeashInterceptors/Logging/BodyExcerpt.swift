import Foundation

/// The first bytes of a body, as a log shows them: text if they are UTF-8 text, else
/// `<N bytes of binary>`.
enum BodyExcerpt {
    /// `data`'s first `limit` bytes as text, followed by `… (N bytes in all)` when cut; or
    /// `<N bytes of binary>`. A character cut in half at the limit is left out.
    static func describe(_ data: Data, limit: Int) -> String {
        let limit = max(0, limit)
        guard let text = text(of: data.prefix(limit), isCut: data.count > limit) else {
            return "<\(data.count) bytes of binary>"
        }
        guard data.count > limit else { return text }
        return "\(text)… (\(data.count) bytes in all)"
    }

    /// `bytes` decoded as UTF-8 text, dropping up to three bytes at the end when `isCut`
    /// (a character split at the limit); `nil` if it is not text.
    private static func text(of bytes: Data, isCut: Bool) -> String? {
        for dropped in 0...(isCut ? min(3, bytes.count) : 0) {
            if let text = String(data: bytes.dropLast(dropped), encoding: .utf8) {
                return isReadable(text) ? text : nil
            }
        }
        return nil
    }

    /// Text without control characters other than tabs and line breaks.
    private static func isReadable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            scalar == "\n" || scalar == "\r" || scalar == "\t" || !(scalar.value < 0x20 || scalar.value == 0x7F)
        }
    }
}
