/// A value handed from one stage (or thread) to the next exactly once: values need not
/// be `Sendable`, because nothing else holds them afterwards.
struct Carried<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
