import Leash
import Rx

extension ObservableType {
    /// The values alone, without their details (Leash's `justValue()`).
    ///
    /// ```swift
    /// let users: Observable<[User]> = client.rx.response(APIEndpoint.readAllUsers, type: [User].self).justValue()
    /// ```
    public func justValue<Value>() -> Observable<Value> where Element == ResponseValue<Value> {
        map { $0.value }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The value alone, without its details.
    public func justValue<Value>() -> Single<Value> where Element == ResponseValue<Value> {
        primitiveSequence.map { $0.value }
    }
}
