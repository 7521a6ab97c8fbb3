import Foundation
import RxLeash

/// A search box's view model: what the user types, debounced, becomes a search request;
/// a newer term cancels the search still in flight; the view binds to `state`.
///
/// It takes its inputs as streams and a scheduler, so its tests drive it in virtual time
/// with a `TestScheduler` and a `StubTransport` (see `SearchViewModelTests`).
public final class SearchViewModel: Sendable {
    /// What the view shows.
    public enum State: Equatable, Sendable {
        /// Nothing to search for.
        case idle
        /// A search for the term is in flight.
        case searching(String)
        /// The users found.
        case results([User])
        /// The search failed; the message is for the user.
        case failed(String)
    }

    /// The state, from `.idle`; replayed to each new subscriber.
    public let state: Observable<State>

    /// - Parameters:
    ///   - query: What the user types, as they type it.
    ///   - client: Executes the searches.
    ///   - scheduler: Where the debounce timer runs (a `TestScheduler` in tests).
    ///   - debounce: How long the text must stay unchanged before a search starts.
    public init(
        query: Observable<String>, client: Client, scheduler: SchedulerType,
        debounce: RxTimeInterval = .milliseconds(300)
    ) {
        state =
            query
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .debounce(debounce, scheduler: scheduler)
            .distinctUntilChanged()
            .flatMapLatest { term -> Observable<State> in
                guard !term.isEmpty else { return .just(.idle) }
                // flatMapLatest disposes the previous search when a new term arrives,
                // which cancels its request.
                return client.rx.execute(API.searchUsers(term), type: [User].self)
                    .map { State.results($0) }
                    .catch { error in .just(.failed(SearchViewModel.message(for: error))) }
                    .startWith(.searching(term))
            }
            .startWith(.idle)
            .share(replay: 1, scope: .whileConnected)
    }

    /// A message a user can act on.
    static func message(for error: Swift.Error) -> String {
        switch error as? LeashError {
        case .transport?, .timeout?: return "You seem to be offline. Try again."
        case .unacceptableStatusCode(let failure)? where failure.kind == .server:
            return "The service is having trouble. Try again later."
        case .authenticationFailed?: return "Please sign in again."
        default: return "Something went wrong."
        }
    }
}
