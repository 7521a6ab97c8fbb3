import Foundation
import Rx

/// The forms of an execution as observables: each subscription starts one `Execution` of
/// the recipe, whose sink is the subscriber itself (no operator in between), and
/// disposing cancels it. What `client.rx` builds on.
///
/// Four small types rather than one generic one: each is what its form's subscriber
/// receives, with nothing to look up per event.
enum ObservableForms {
    /// An execution's values with their details (`Response.success`); the stream fails with
    /// the failure that ends the execution.
    struct Responses<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
        // @unchecked: immutable (the recipe's endpoint is the app's value, only read).
        typealias Element = Response<Serializer.SerializedObject>

        let recipe: ExecutionRecipe
        let serializer: Serializer

        func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
        where Observer.Element == Element {
            recipe.start(ResponseSink(observer: observer), serializer: serializer)
        }
    }

    /// An execution's values alone (what `client.rx.execute` emits).
    struct Values<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
        // @unchecked: see `Responses`.
        typealias Element = Serializer.SerializedObject

        let recipe: ExecutionRecipe
        let serializer: Serializer

        func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
        where Observer.Element == Element {
            recipe.start(ValueSink(observer: observer), serializer: serializer)
        }
    }

    /// An execution as events: progress, then values (`ExecutionEvent`).
    struct Events<Serializer: ResponseSerializer>: ObservableType, @unchecked Sendable {
        // @unchecked: see `Responses`.
        typealias Element = ExecutionEvent<Serializer.SerializedObject>

        let recipe: ExecutionRecipe
        let serializer: Serializer

        func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
        where Observer.Element == Element {
            recipe.start(EventSink(observer: observer), serializer: serializer)
        }
    }
}

/// Ends `observer` as an execution's end says.
private func end<Observer: ObserverType>(_ observer: Observer, _ error: Swift.Error?) {
    if let error { observer.onError(error) } else { observer.onCompleted() }
}

/// The subscriber of `ObservableForms.Responses`.
private struct ResponseSink<Observer: ObserverType, Value>: ExecutionSink, @unchecked Sendable
where Observer.Element == Response<Value> {
    // @unchecked: the outlet calls it one item at a time.
    let observer: Observer

    func value(_ value: Value, extra: ResponseExtra) {
        observer.onNext(.success(value: value, extra: extra))
    }

    func end(_ error: Swift.Error?) {
        Leash.end(observer, error)
    }
}

/// The subscriber of `ObservableForms.Values`.
private struct ValueSink<Observer: ObserverType>: ExecutionSink, @unchecked Sendable {
    // @unchecked: the outlet calls it one item at a time.
    let observer: Observer

    func value(_ value: Observer.Element, extra: ResponseExtra) {
        observer.onNext(value)
    }

    func end(_ error: Swift.Error?) {
        Leash.end(observer, error)
    }
}

/// The subscriber of `ObservableForms.Events`.
private struct EventSink<Observer: ObserverType, Value>: ExecutionSink, @unchecked Sendable
where Observer.Element == ExecutionEvent<Value> {
    // @unchecked: the outlet calls it one item at a time.
    let observer: Observer

    var reportsProgress: Bool { true }

    func progress(_ progress: ExecutionProgress) {
        if let event = ExecutionEvent<Value>(progress: progress) { observer.onNext(event) }
    }

    func value(_ value: Value, extra: ResponseExtra) {
        observer.onNext(.value(value, extra: extra))
    }

    func end(_ error: Swift.Error?) {
        Leash.end(observer, error)
    }
}
