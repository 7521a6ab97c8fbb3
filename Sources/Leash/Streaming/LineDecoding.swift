import Foundation
import Rx

/// Turns a stream's chunks into lines and each line into a value (`Client.linesExecution`).
///
/// One per subscription; the Rx contract calls it one event at a time, so its state needs
/// no lock.
final class LineDecoding<Line: Decodable>: @unchecked Sendable {
    // @unchecked: used by one subscription, one event at a time (see above).
    private var splitter: LineSplitter
    private let decoder: JSONDecoder
    /// Whether lines are handed out as text (`String`), blank ones included, rather than
    /// decoded as JSON (blank ones skipped).
    private let isText = Line.self == String.self

    private let maximumLineLength: Int

    init(decoder: JSONDecoder, maximumLineLength: Int) {
        self.decoder = decoder
        self.maximumLineLength = maximumLineLength
        splitter = LineSplitter(maximumLineLength: maximumLineLength)
    }

    /// A decoding of its own for another subscription, with the same settings.
    func fresh() -> LineDecoding {
        LineDecoding(decoder: decoder, maximumLineLength: maximumLineLength)
    }

    /// `elements` as decoded lines: each line as soon as it is complete; a last line
    /// without its line end when the body ends; what was complete, then the error, when
    /// the stream fails.
    static func lines(
        of elements: Observable<StreamElement>, decoder: JSONDecoder, maximumLineLength: Int
    ) -> Observable<Line> {
        // Made here, copied per subscription: the closure then captures an instance, not
        // `Line`'s conformance (which is not Sendable).
        let template = LineDecoding(decoder: decoder, maximumLineLength: maximumLineLength)
        return Observable.create { observer in
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
            if let value = try decode(line) { observer.onNext(value) }
        }
    }

    private func finish(to observer: AnyObserver<Line>) throws {
        guard let last = splitter.finish(), let value = try decode(last) else { return }
        observer.onNext(value)
    }

    /// The value of the line just split off (number `splitter.lineCount`); nil for a blank
    /// line of JSON.
    private func decode(_ line: Data) throws -> Line? {
        let number = splitter.lineCount
        if isText {
            guard let text = String(validating: line, as: UTF8.self) else {
                throw LeashError.decoding(
                    type: "String (line \(number) of the stream)",
                    underlying: DecodingError.dataCorrupted(
                        DecodingError.Context(codingPath: [], debugDescription: "The line is not valid UTF-8.")),
                    bodyExcerpt: Self.excerpt(of: line, number: number))
            }
            return text as? Line
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        do {
            return try decoder.decode(Line.self, from: line)
        } catch {
            throw LeashError.decoding(
                type: "\(Line.self) (line \(number) of the stream)", underlying: error,
                bodyExcerpt: Self.excerpt(of: line, number: number))
        }
    }

    /// The line's number and beginning, for an error: `line 3: {"index":3,`.
    static func excerpt(of line: Data, number: Int) -> String {
        let limit = 200
        let text = String(decoding: line.prefix(limit), as: UTF8.self)
        return "line \(number): \(text)" + (line.count > limit ? "…" : "")
    }
}
