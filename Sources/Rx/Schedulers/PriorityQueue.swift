/// A binary min-heap ordered by `hasHigherPriority`.
struct PriorityQueue<Element> {
    private var elements: [Element] = []
    private let hasHigherPriority: (Element, Element) -> Bool

    init(hasHigherPriority: @escaping (Element, Element) -> Bool) {
        self.hasHigherPriority = hasHigherPriority
    }

    var isEmpty: Bool { elements.isEmpty }
    var count: Int { elements.count }

    func peek() -> Element? { elements.first }

    /// Every element, highest priority first (for descriptions; sorts a copy).
    var sortedElements: [Element] { elements.sorted(by: hasHigherPriority) }

    mutating func enqueue(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard hasHigherPriority(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func dequeue() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let first = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < elements.count, hasHigherPriority(elements[left], elements[best]) { best = left }
            if right < elements.count, hasHigherPriority(elements[right], elements[best]) { best = right }
            if best == parent { break }
            elements.swapAt(parent, best)
            parent = best
        }
        return first
    }
}
