import Foundation

/// Every `NSObject` (and subclass) has `.rx`, as in RxSwift: its reactive extensions, and a
/// `Binder` for each writable property (`titles.bind(to: object.rx.title)`).
///
/// `Rx` already depends on Foundation (dates, dispatch, decoding), so this costs nothing.
/// A subclass must not declare `ReactiveCompatible` again: it inherits the conformance.
extension NSObject: ReactiveCompatible {}
