import Foundation

/// Something that decodes a `Decodable` value from `Data`, such as `JSONDecoder` or
/// `PropertyListDecoder`; used by `decode(type:decoder:)`.
public protocol DataDecoder {
    /// Decodes a value of `type` from `data`.
    func decode<Item: Decodable>(_ type: Item.Type, from data: Data) throws -> Item
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}

extension ObservableType where Element == Data {
    /// Decodes each `Data` element into an `Item` with `decoder`; a decoding error ends the
    /// sequence with it.
    ///
    /// The decoder is called from whichever thread the source emits on, and from several at
    /// once if several subscriptions run concurrently; `JSONDecoder` and `PropertyListDecoder`
    /// allow that, and a custom decoder must too (as in RxSwift).
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    public func decode<Item: Decodable, Decoder: DataDecoder>(type: Item.Type, decoder: Decoder) -> Observable<Item> {
        DecodeProducer(source: asObservable(), decoder: decoder)
    }
}

/// The observable of `decode(type:decoder:)`.
///
/// A subclass rather than `Observable.make`: a `@Sendable` closure may not capture the
/// conformances of `Item` and `Decoder` (their metatypes are not `Sendable`).
/// `@unchecked Sendable`: immutable; `DataDecoder` is not `Sendable` (`JSONDecoder` is
/// `Sendable` only on recent SDKs), and sharing it rests on the contract documented on `decode`.
final class DecodeProducer<Item: Decodable, Decoder: DataDecoder>: Observable<Item>, @unchecked Sendable {
    private let source: Observable<Data>
    private let decoder: Decoder

    init(source: Observable<Data>, decoder: Decoder) {
        self.source = source
        self.decoder = decoder
        super.init()
    }

    override func run(_ observer: AnyObserver<Item>) -> Disposable {
        let sink = DecodeSink<Item, Decoder>(decoder: decoder, downstream: observer)
        sink.attach(source.run(AnyObserver { sink.on($0) }))
        return sink
    }
}

final class DecodeSink<Item: Decodable, Decoder: DataDecoder>: Sink<Item>, @unchecked Sendable {
    private let decoder: Decoder

    init(decoder: Decoder, downstream: AnyObserver<Item>) {
        self.decoder = decoder
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Data>) {
        switch event {
        case .next(let data):
            guard !isStoppedOrDisposed else { return }
            do {
                forward(.next(try decoder.decode(Item.self, from: data)))
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}
