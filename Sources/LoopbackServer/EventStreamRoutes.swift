import Foundation

extension LoopbackServer {
    /// `GET /sse`: numbered server-sent events, continuing after the request's
    /// `Last-Event-ID`.
    static func serverSentEvents(_ request: LoopbackRequest) -> LoopbackResponse {
        // Bounded so that `lastEventID + count + 1` can never overflow.
        let largest = Int.max / 4
        var options = QueryOptions(request)
        let count = options.integer("count", in: 0...largest) ?? 3
        let interval = options.interval()
        let retry = options.integer("retry", in: 0...Int(Int32.max))
        let comments = options.flag("comments")
        let multiline = options.flag("multiline")
        let dropAfter = options.integer("dropAfter", in: 0...largest)
        let endAt = options.integer("endAt", in: 0...Int.max)
        let status = options.integer("status", in: 200...599)
        guard !options.isMalformed else { return .status(400) }
        if let status { return .status(status) }
        let lastEventID = lastEventID(request, atMost: largest)
        // The standard's way to tell an event source to stop reconnecting.
        if let endAt, lastEventID >= endAt { return .empty(status: 204) }

        @Sendable func event(_ number: Int) -> String {
            var text = comments ? ": keep-alive\n" : ""
            text += "id: \(number)\n"
            text +=
                multiline ? "data: line one of \(number)\ndata: line two of \(number)\n" : "data: {\"n\":\(number)}\n"
            return text + "\n"
        }
        let whole = min(count, dropAfter ?? Int.max)
        let headers: LoopbackHeaders = [
            "Content-Type": request.queryValue("contentType") ?? "text/event-stream", "Cache-Control": "no-cache",
        ]
        return .streamed(headers: headers) { writer in
            if let retry, !writer.write("retry: \(retry)\n\n") { return }
            for index in 0..<whole {
                if index > 0, interval > 0, !writer.pause(interval) { return }
                guard writer.write(event(lastEventID + 1 + index)) else { return }
            }
            guard dropAfter != nil else { return }
            // Cut mid-event: half of the next one, then no terminating chunk.
            if whole > 0, interval > 0, !writer.pause(interval) { return }
            let next = Array(event(lastEventID + 1 + whole).utf8)
            guard writer.write(Data(next[..<(next.count / 2)])) else { return }
            writer.dropConnection()
        }
    }

    /// The request's `Last-Event-ID` as a number from 0 to `largest`; 0 when it is absent or
    /// not such a number.
    private static func lastEventID(_ request: LoopbackRequest, atMost largest: Int) -> Int {
        guard let text = request.headers["Last-Event-ID"], let value = Int(text.trimmingSpaces()),
            (0...largest).contains(value)
        else { return 0 }
        return value
    }
}
