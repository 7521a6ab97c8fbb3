// The assertions of RxTest, for tests ported from it. RxTesting also serves code that is
// not a test (the tour's blocking reads), so XCTest is used only where it exists.
#if canImport(XCTest)
    import Rx
    import XCTest

    /// Asserts that two lists of events are equal, and lists the indexes where they differ
    /// when not.
    ///
    /// Elements compare with `==`; errors are equal when they have the same `NSError` domain
    /// and code and the same description; completions are always equal.
    public func XCTAssertEqual<T: Equatable>(
        _ lhs: [Event<T>], _ rhs: [Event<T>], file: StaticString = #filePath, line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, { $0 == $1 }), file: file, line: line)
    }

    /// Asserts that two lists of `Single` outcomes are equal, and lists the indexes where
    /// they differ when not.
    ///
    /// Elements compare with `==`; errors are equal when they have the same `NSError` domain
    /// and code and the same description.
    public func XCTAssertEqual<T: Equatable>(
        _ lhs: [SingleEvent<T>], _ rhs: [SingleEvent<T>], file: StaticString = #filePath, line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, singleEventsAreEqual), file: file, line: line)
    }

    /// Asserts that two lists of `Maybe` outcomes are equal, and lists the indexes where
    /// they differ when not.
    ///
    /// Elements compare with `==`; errors are equal when they have the same `NSError` domain
    /// and code and the same description; completions are always equal.
    public func XCTAssertEqual<T: Equatable>(
        _ lhs: [MaybeEvent<T>], _ rhs: [MaybeEvent<T>], file: StaticString = #filePath, line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, { $0 == $1 }), file: file, line: line)
    }

    /// Asserts that two lists of `Completable` outcomes are equal, and lists the indexes
    /// where they differ when not.
    ///
    /// Errors are equal when they have the same `NSError` domain and code and the same
    /// description; completions are always equal.
    public func XCTAssertEqual(
        _ lhs: [CompletableEvent], _ rhs: [CompletableEvent], file: StaticString = #filePath, line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, { $0 == $1 }), file: file, line: line)
    }

    /// Asserts that two lists of recorded events are equal, time and event, and lists the
    /// indexes where they differ when not.
    ///
    /// ```swift
    /// XCTAssertEqual(res.events, [.next(210, 1), .completed(300)])
    /// ```
    ///
    /// Elements compare with `==`; errors are equal when they have the same `NSError` domain
    /// and code and the same description; completions are always equal.
    public func XCTAssertEqual<T: Equatable>(
        _ lhs: [Recorded<Event<T>>], _ rhs: [Recorded<Event<T>>], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, { $0 == $1 }), file: file, line: line)
    }

    /// Asserts that two lists of recorded events with optional elements are equal, time and
    /// event, and lists the indexes where they differ when not.
    ///
    /// Elements compare with `==` (`nil` equals `nil`); errors are equal when they have the
    /// same `NSError` domain and code and the same description; completions are always equal.
    public func XCTAssertEqual<T: Equatable>(
        _ lhs: [Recorded<Event<T?>>], _ rhs: [Recorded<Event<T?>>], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        failIfMismatched("XCTAssertEqual", listMismatch(lhs, rhs, { $0 == $1 }), file: file, line: line)
    }

    /// Asserts that a recorded stream emitted exactly `elements`, in order, whatever their
    /// times, and has not stopped: a `completed` or `error` in `stream` fails the assertion.
    ///
    /// ```swift
    /// XCTAssertRecordedElements(observer.events, ["a", "b"])
    /// ```
    public func XCTAssertRecordedElements<T: Equatable>(
        _ stream: [Recorded<Event<T>>], _ elements: [T], file: StaticString = #filePath, line: UInt = #line
    ) {
        failIfMismatched(
            "XCTAssertRecordedElements", recordedElementsMismatch(stream, elements), file: file, line: line)
    }

    /// Fails the current test at the caller's `file` and `line` when there is a mismatch.
    private func failIfMismatched(_ assertion: String, _ mismatch: String?, file: StaticString, line: UInt) {
        guard let mismatch else { return }
        XCTFail("\(assertion) failed: \(mismatch)", file: file, line: line)
    }
#endif
