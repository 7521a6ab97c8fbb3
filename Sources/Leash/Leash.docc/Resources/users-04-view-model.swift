import RxLeash

/// A screen's view model: the users as a `Driver` (never fails, replays the latest list to
/// a view that binds late), loaded at once and on each pull to refresh; failures as a
/// `Signal` of messages.
final class UsersViewModel: Sendable {
    let users: Driver<[User]>
    let errors: Signal<String>

    init(refresh: Signal<Void>, client: Client) {
        let failures = PublishRelay<String>()
        users = refresh.startWith(())
            .flatMapLatest { _ -> Driver<[User]> in
                client.rx.single(GetUsers())
                    .asDriver(onErrorRecover: { error in
                        failures.accept("Could not load the users: \(error)")
                        return .empty()
                    })
            }
        errors = failures.asSignal()
    }
}
