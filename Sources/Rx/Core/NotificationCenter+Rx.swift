import Foundation

#if !canImport(Darwin)
    // On Apple platforms `NotificationCenter` is an `NSObject` and has `.rx` already; the
    // open-source Foundation's is not.
    extension NotificationCenter: ReactiveCompatible {}
#endif

extension Reactive where Base: NotificationCenter {
    /// The notifications named `name` (every notification if `nil`) that `object` posts
    /// (any sender if `nil`), as RxCocoa's: each subscription adds an observer to the
    /// center, and disposing removes it. Notifications arrive on the thread that posts
    /// them. Never completes.
    ///
    /// ```swift
    /// NotificationCenter.default.rx.notification(.NSCalendarDayChanged)
    ///     .subscribe(onNext: { _ in viewModel.reload() })
    ///     .disposed(by: disposeBag)
    /// ```
    public func notification(_ name: Notification.Name?, object: AnyObject? = nil) -> Observable<Notification> {
        // The center and the sender are only handed back to the center; the token it gives
        // is only used to remove the observer.
        let center = UncheckedSendable(base)
        let sender = UncheckedSendable(object)
        return Observable.create { observer in
            let token = center.value.addObserver(forName: name, object: sender.value, queue: nil) { notification in
                observer.on(.next(notification))
            }
            let registration = UncheckedSendable(token)
            return Disposables.create {
                center.value.removeObserver(registration.value)
            }
        }
    }
}
