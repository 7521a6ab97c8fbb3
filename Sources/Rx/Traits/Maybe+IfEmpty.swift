extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The maybe's element, or `default` if it completes without one: a `Single`.
    public func ifEmpty(default: Element) -> Single<Element> {
        Single(raw: primitiveSequence.source.ifEmpty(default: `default`))
    }

    /// The maybe's outcome, or that of `other` if it completes without an element.
    public func ifEmpty(switchTo other: Maybe<Element>) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.ifEmpty(switchTo: other.source))
    }

    /// The maybe's outcome, or that of `other` if it completes without an element: a
    /// `Single`, since either way there is an element or an error.
    public func ifEmpty(switchTo other: Single<Element>) -> Single<Element> {
        Single(raw: primitiveSequence.source.ifEmpty(switchTo: other.source))
    }
}
