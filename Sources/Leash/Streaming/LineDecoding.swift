import Foundation
import Rx

/// Turns a stream's chunks into lines and each line into a value (`Client.lineStream`).
///
/// One per subscription; the Rx contract calls it one event at a time, so its state needs
/// no lock. Generic without constraints: its closures then capture no conformance of
/// `Line` (which would not be Sendable); the decoding comes from `LineDecoders`.
final class LineDecoding<Line>: @unchecked Sendable {
    // @unchecked: used by one subscription, one event at a time (see above).

    /// Decodes the line numbered by the second argument; nil to skip it.
    typealias Decode = (Data, Int) throws -> Line?

    private var splitter: LineSplitter
    private let decodeLine: Decode
    /// The number of the last line handed out (counted here: the splitter's own count
    /// cannot be read while it is splitting).
    private var lineNumber = 0

    private let maximumLineLength: Int

    init(maximumLineLength: Int, decode: @escaping Decode) {
        self.maximumLineLength = maximumLineLength
        decodeLine = decode
        splitter = LineSplitter(maximumLineLength: maximumLineLength)
    }

    /// A decoding of its own for another subscription, with the same settings.
    func fresh() -> LineDecoding {
        LineDecoding(maximumLineLength: maximumLineLength, decode: decodeLine)
    }

    /// `elements` as decoded lines: each line as soon as it is complete; a last line
    /// without its line end when the body ends; what was complete, then the error, when
    /// the stream fails. `template` is copied per subscription.
    static func lines(of elements: Observable<StreamElement>, _ template: LineDecoding) -> Observable<Line> {
        Observable.create { observer in
            let decoding = template.fresh()
            return elements.subscribe { event in
                do {
                    switch event {
                    case .next(.head):
                        break
                    case .next(.chunk(let data)):
                        try decoding.append(data, to: observer)
                    case .next(.whole(_, let data)):
                        try decoding.append(data, to: observer)
                    case .error(let error):
                        observer.onError(error)
                    case .completed:
                        try decoding.finish(to: observer)
                        observer.onCompleted()
                    }
                } catch {
                    observer.onError(error)
                }
            }
        }
    }

    private func append(_ data: Data, to observer: AnyObserver<Line>) throws {
        try splitter.append(data) { line in
            lineNumber += 1
            if let value = try decodeLine(line, lineNumber) { observer.onNext(value) }
        }
    }

    private func finish(to observer: AnyObserver<Line>) throws {
        guard let last = splitter.finish() else { return }
        lineNumber += 1
        guard let value = try decodeLine(last, lineNumber) else { return }
        observer.onNext(value)
    }

}

/// How `LineDecoding` decodes a line as `Line`.
enum LineDecoders {
    /// Decodes JSON lines with `decoder`, blank ones skipped. (Text lines take `text`,
    /// through `Client.lineStream`'s path without generics.)
    static func decoding<Line: Decodable>(_ type: Line.Type, with decoder: JSONDecoder) -> LineDecoding<Line>.Decode {
        return { line, number in
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
            do {
                return try decoder.decode(Line.self, from: line)
            } catch {
                throw LeashError.decoding(
                    type: "\(Line.self) (line \(number) of the stream)", underlying: error,
                    bodyExcerpt: excerpt(of: line, number: number))
            }
        }
    }

    /// A line as UTF-8 text (every one, blank ones too); invalid UTF-8 is a
    /// `LeashError.decoding` naming the line.
    static func text(_ line: Data, _ number: Int) throws -> String? {
        guard let text = line.withUnsafeBytes({ validUTF8(in: $0.bindMemory(to: UInt8.self)) }) else {
            throw LeashError.decoding(
                type: "String (line \(number) of the stream)",
                underlying: DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: [], debugDescription: "The line is not valid UTF-8.")),
                bodyExcerpt: excerpt(of: line, number: number))
        }
        return text
    }

    /// `bytes` as a string if they are well-formed UTF-8, else nil: what
    /// `String(validating:as:)` does, which needs macOS 15 / iOS 18.
    ///
    /// Decoding copies well-formed UTF-8 unchanged and replaces each ill-formed sequence with
    /// U+FFFD, so the bytes are valid exactly when the decoded string's are the same bytes
    /// (a U+FFFD already in the line is kept, and a byte-order mark too). Decoding from
    /// contiguous bytes then one `memcmp` is faster than `String(validating:as:)` here.
    static func validUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count == bytes.count else { return nil }
        let unchanged =
            text.utf8.withContiguousStorageIfAvailable { decoded in
                // No base address only when empty, and both have the same count.
                guard let decoded = decoded.baseAddress, let original = bytes.baseAddress else { return true }
                return memcmp(decoded, original, bytes.count) == 0
            } ?? text.utf8.elementsEqual(bytes)
        return unchanged ? text : nil
    }

    /// The line's number and beginning, for an error: `line 3: {"index":3,`.
    static func excerpt(of line: Data, number: Int) -> String {
        let limit = 200
        let text = String(decoding: line.prefix(limit), as: UTF8.self)
        return "line \(number): \(text)" + (line.count > limit ? "…" : "")
    }
}
