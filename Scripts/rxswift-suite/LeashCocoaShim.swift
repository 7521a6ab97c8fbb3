// Leash's own code, not RxCocoa's: copied into the generated port package only with --cocoa.
//
// Leash has no ControlEvent (an RxCocoa UI trait for UIControl/NSControl events), but one test
// of RxCocoa's Signal+Test.swift, testControlEventAsSignal, names it, and a test file either
// compiles whole or not at all. This stand-in (RxCocoa's ControlEvent: its init subscribes on
// ConcurrentMainScheduler, asSignal() completes on error) only lets the rest of that file
// compile; the script skips testControlEventAsSignal, which would test this file, not Leash.

import Rx

struct ControlEvent<PropertyType>: ObservableType {
    typealias Element = PropertyType

    let events: Observable<PropertyType>

    init<Ev: ObservableType>(events: Ev) where Ev.Element == Element {
        self.events = events.subscribe(on: ConcurrentMainScheduler.instance)
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        events.subscribe(observer)
    }

    func asObservable() -> Observable<Element> { events }

    func asSignal() -> Signal<Element> { asSignal(onErrorSignalWith: .empty()) }
}
