extension SharedSequenceConvertibleType {
    /// The elements of the sequence as an `AsyncStream`, for `for await`: a shared
    /// sequence cannot fail, so the loop needs no `try`.
    ///
    /// ```swift
    /// for await title in viewModel.title.values { … }
    /// ```
    ///
    /// Each `values` stream subscribes once, when it is created (a `Driver` replays its
    /// latest element to it). The stream buffers elements without bound and finishes when
    /// the sequence completes. Cancelling the consuming task, or dropping the stream,
    /// disposes the subscription and ends the loop.
    public var values: AsyncStream<Element> {
        let source = asObservable()
        return AsyncStream<Element> { ValuesSink.start(source, feeding: $0) }
    }
}
