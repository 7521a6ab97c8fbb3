import Foundation

extension LoopbackServer {
    /// `GET /sse/flood`: `count` events as fast as the client takes them, many per write.
    static func eventFlood(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let count = options.integer("count", in: 0...(1 << 50)) ?? 1000
        guard !options.isMalformed else { return .status(400) }
        let headers: LoopbackHeaders = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]
        return .streamed(headers: headers) { writer in
            var batch = ByteBatch(capacity: floodBatchSize)
            defer { batch.deallocate() }
            var number = DecimalCounter()
            for _ in 0..<count {
                number.increment()
                // An event is at most 19 bytes plus its number twice (20 digits at most).
                if batch.free < 64 {
                    guard batch.flush(to: writer) else { return }
                }
                batch.append("id: ")
                batch.append(number)
                batch.append("\ndata: {\"n\":")
                batch.append(number)
                batch.append("}\n\n")
            }
            _ = batch.flush(to: writer)
        }
    }

    /// `GET /lines/flood`: NDJSON lines of 100 bytes (the last one up to 199) totalling
    /// `bytes`, as fast as the client takes them, many per write.
    static func lineFlood(_ request: LoopbackRequest) -> LoopbackResponse {
        var options = QueryOptions(request)
        let total = options.integer("bytes", in: 0...(1 << 42)) ?? 1 << 20
        guard !options.isMalformed else { return .status(400) }
        // A shorter body cannot hold one valid line (`{"n":0,"pad":""}` and a newline).
        guard total == 0 || total >= minimumLineLength else { return .status(400) }
        return .streamed(headers: ["Content-Type": "application/x-ndjson"]) { writer in
            var batch = ByteBatch(capacity: floodBatchSize)
            defer { batch.deallocate() }
            var number = DecimalCounter()
            var remaining = total
            while remaining > 0 {
                // Lines of 100 bytes, the last one taking what is left (100…199 bytes, or the
                // whole body when it is shorter), so that every line is whole.
                let length = remaining < 2 * lineLength ? remaining : lineLength
                if batch.free < 2 * lineLength {
                    guard batch.flush(to: writer) else { return }
                }
                batch.append("{\"n\":")
                batch.append(number)
                batch.append(",\"pad\":\"")
                batch.append(repeating: UInt8(ascii: "x"), count: length - minimumLineLength + 1 - number.digitCount)
                batch.append("\"}\n")
                number.increment()
                remaining -= length
            }
            _ = batch.flush(to: writer)
        }
    }

    /// The size of the writes of the flood routes.
    private static let floodBatchSize = 64 * 1024
    /// The length of the lines of `GET /lines/flood`.
    private static let lineLength = 100
    /// The length of the shortest line of `GET /lines/flood`: `{"n":0,"pad":""}` and `\n`.
    private static let minimumLineLength = 17
}

/// A fixed buffer that bodies are assembled in, written out as one chunk when full: many
/// small pieces cost one write, and nothing is formatted through `String`.
struct ByteBatch {
    /// The buffer, owned by the batch until `deallocate()`.
    private let storage: UnsafeMutableRawBufferPointer
    /// The bytes assembled so far, at the start of `storage`.
    private var count = 0

    /// An empty batch of `capacity` bytes; call `deallocate()` when done.
    init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// The room left. Callers check it before appending; appending past it is a bug.
    var free: Int { storage.count - count }

    /// Appends ASCII text known at compile time.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { source in
            UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + source.count])
                .copyMemory(from: UnsafeRawBufferPointer(source))
            count += source.count
        }
    }

    /// Appends `number`'s decimal digits.
    mutating func append(_ number: DecimalCounter) {
        count += number.copy(to: UnsafeMutableRawBufferPointer(rebasing: storage[count...]))
    }

    /// Appends `byte` `repetitions` times (none when not positive).
    mutating func append(repeating byte: UInt8, count repetitions: Int) {
        guard repetitions > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + repetitions]).initializeMemory(
            as: UInt8.self, repeating: byte)
        count += repetitions
    }

    /// Writes what was assembled as one chunk and empties the batch.
    /// - Returns: false when the stream can no longer be written.
    mutating func flush(to writer: LoopbackStreamWriter) -> Bool {
        defer { count = 0 }
        return writer.write(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Frees the buffer; the batch must not be used afterwards.
    func deallocate() {
        storage.deallocate()
    }
}

/// A non-negative integer kept as ASCII decimal digits and incremented in place, so that
/// writing millions of consecutive numbers costs no formatting.
struct DecimalCounter {
    /// The digits, right-aligned: the number is the last `digitCount` bytes. 20 digits hold
    /// any `Int`.
    private var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 20)
    /// How many digits the number has.
    private(set) var digitCount = 1

    /// Adds one.
    mutating func increment() {
        var index = digits.count - 1
        while index >= 0 {
            if digits[index] != UInt8(ascii: "9") {
                digits[index] += 1
                break
            }
            digits[index] = UInt8(ascii: "0")
            index -= 1
        }
        digitCount = max(digitCount, digits.count - max(index, 0))
    }

    /// Copies the digits to the start of `destination`.
    /// - Returns: how many were copied.
    func copy(to destination: UnsafeMutableRawBufferPointer) -> Int {
        digits.withUnsafeBytes { source in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(source.count - digitCount)...]))
        }
        return digitCount
    }
}
