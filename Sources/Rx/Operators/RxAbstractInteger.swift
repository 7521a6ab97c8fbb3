/// The integer types that `range`, `interval` and `timer` count in, as in RxSwift.
///
/// Unlike RxSwift's it also requires `Sendable`, which every standard integer type is, so
/// that the counting closures that schedulers run on other threads may use the type.
public typealias RxAbstractInteger = FixedWidthInteger & Sendable
