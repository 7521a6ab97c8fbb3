extension ObservableType {
    /// A sequence that owns a resource for the life of each subscription.
    ///
    /// On subscription `resourceFactory` makes the resource and `observableFactory` the
    /// sequence that uses it; the resource is disposed when the subscription ends, by a
    /// terminal event or by disposal. An error thrown by either factory ends the sequence
    /// with it (after disposing the resource, if there is one).
    ///
    /// - Parameters:
    ///   - resourceFactory: Makes the resource, once per subscription.
    ///   - observableFactory: Makes the sequence from the resource.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        observableFactory: @escaping @Sendable (Resource) throws -> Observable<Element>
    ) -> Observable<Element> {
        Observable<Element>.make { observer in
            let resource: Resource
            do {
                resource = try resourceFactory()
            } catch {
                observer.on(.error(error))
                return Disposables.create()
            }
            let sink = UsingSink(resource: resource, downstream: observer)
            do {
                let source = try observableFactory(resource)
                sink.attach(source.run(AnyObserver { sink.forwardEvent($0) }))
            } catch {
                sink.forwardTerminal(.error(error))
            }
            return sink
        }
    }
}

/// One subscription of `using`: forwards the events and disposes the resource last.
final class UsingSink<Element, Resource: Disposable>: Sink<Element>, @unchecked Sendable {
    private let resource: Resource

    init(resource: Resource, downstream: AnyObserver<Element>) {
        self.resource = resource
        super.init(downstream: downstream)
    }

    override func didDispose() {
        resource.dispose()
    }
}
