/// A value handed from one stage (or thread) to the next exactly once: values need not
/// be `Sendable`, because nothing else holds them afterwards. `package`, so that the test
/// doubles (`LeashTesting`) hand their requests on the same way.
package struct Carried<Value>: @unchecked Sendable {
    // @unchecked: the value has one holder at a time (see above).
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
