import Foundation
import RxLeash

/// A download button and its progress bar: `start()` downloads a file, the bar follows
/// `.downloading(fraction)`, `cancel()` stops it, and the view shows the file or a message
/// when it is over.
///
/// ```swift
/// let viewModel = DownloadViewModel(client: client, endpoint: ReportFile(), destination: reportURL)
/// viewModel.state
///     .subscribe(onNext: { state in
///         if case .downloading(let fraction) = state { progressBar.progress = Float(fraction) }
///     })
///     .disposed(by: disposeBag)
/// viewModel.start()
/// ```
///
/// The state lives in a `BehaviorSubject`, so a view that subscribes late sees the current
/// state at once. The states change where the client delivers (its `callbackQueue`: the
/// main queue in an app); call `start()` and `cancel()` there too. Its tests drive it in
/// virtual time with a `TestScheduler` and a `StubTransport` that sends the file in steps
/// (see `DownloadViewModelTests`).
public final class DownloadViewModel: Sendable {
    /// What the view shows.
    public enum State: Equatable, Sendable {
        /// Nothing is downloading: the button shows.
        case idle
        /// The download is under way; the part done, from 0 to 1 (0 while the size is
        /// unknown).
        case downloading(Double)
        /// The file is complete, at this URL.
        case finished(URL)
        /// The download failed; the message is for the user.
        case failed(String)
    }

    /// The state, from `.idle`; the current one is replayed to each new subscriber.
    public var state: Observable<State> { subject.asObservable() }

    private let client: Client
    private let endpoint: any Endpoint & Sendable
    private let destination: URL
    private let subject = BehaviorSubject<State>(value: .idle)
    /// The download in progress: replacing it disposes the one before, which cancels it.
    private let download = SerialDisposable()

    /// - Parameters:
    ///   - client: Downloads the file.
    ///   - endpoint: What to download.
    ///   - destination: Where the file goes once it is complete (nothing is left there if
    ///     the download fails or is cancelled).
    public init(client: Client, endpoint: some Endpoint & Sendable, destination: URL) {
        self.client = client
        self.endpoint = endpoint
        self.destination = destination
    }

    deinit {
        download.dispose()
    }

    /// Starts the download from the beginning (cancelling one in progress first).
    public func start() {
        stopDownload()
        subject.onNext(.downloading(0))
        let subject = self.subject
        download.disposable = client.rx.download(endpoint, to: destination)
            .map { transfer -> State in
                switch transfer {
                case .progress(let progress): return .downloading(progress.fraction ?? 0)
                case .completed(let file): return .finished(file)
                }
            }
            .catch { error in .just(.failed(DownloadViewModel.message(for: error))) }
            .subscribe(onNext: { subject.onNext($0) })
    }

    /// Stops the download in progress, if any, and goes back to `.idle`.
    public func cancel() {
        stopDownload()
        subject.onNext(.idle)
    }

    private func stopDownload() {
        download.disposable = Disposables.create()
    }

    /// A message a user can act on.
    static func message(for error: Swift.Error) -> String {
        if case .fileAccess? = error as? LeashError { return "The file could not be saved." }
        // The network's failures read as they do in the search box.
        return SearchViewModel.message(for: error)
    }
}
