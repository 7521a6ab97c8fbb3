/// Both an observable sequence and an observer: what subjects are.
public protocol SubjectType: ObservableType {
    /// The observer type through which events are fed in.
    associatedtype Observer: ObserverType

    /// The subject as an observer.
    func asObserver() -> Observer
}
