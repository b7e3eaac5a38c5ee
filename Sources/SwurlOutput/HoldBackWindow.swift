/// The start of a body that a streaming decoder (JSON, XML) holds back until it knows whether
/// the body is what its label says, so a body that is not is shown as text, not half formatted.
///
/// The window holds the first `size` bytes, in pieces that end at fixed offsets of the body
/// (multiples of `step`), so where it closes and what it shows never depend on how the chunks
/// were cut. It closes when it is full or, for a decoder that asks for it (XML), early at a step
/// offset once the pieces stand for more than `heldOutputBudget` bytes of output (nesting makes
/// formatted output far larger than its input), so a body that ends inside it is never written
/// as one huge block. JSON has no budget: an unclosed document under the window's size is shown
/// as sent, and one that checks out is formatted in pieces after the body ends (`endOfBody`).
struct HoldBackWindow {
    /// Bytes held back at the start.
    static let size = 1 << 20
    /// The pieces' length, and the offsets at which the budget is checked.
    static let step = 16 << 10
    /// Output the held bytes may stand for at most.
    static let heldOutputBudget = 4 << 20

    /// What became of a chunk.
    enum Outcome {
        /// All of it is held; the window is still open.
        case holding
        /// The window closed (full, or past the budget); `rest` is the chunk's part after it.
        case closed(rest: UnsafeRawBufferPointer)
        /// A piece was not valid: what was held and the rest of the chunk were shown as text by
        /// this decoder, which shows the rest of the body too. The window is closed.
        case shownAsText(TextResponseDecoder)
    }

    /// Whether bytes still go into the window. Closed from the start with `--stream`.
    private(set) var isOpen: Bool
    /// The bytes held so far.
    private(set) var held: [UInt8] = []
    private var heldOutputCount = 0
    /// Output after which the window closes early; nil: only when full.
    private let outputBudget: Int?

    init(open: Bool, outputBudget: Int? = HoldBackWindow.heldOutputBudget) {
        isOpen = open
        self.outputBudget = outputBudget
    }

    /// Holds the part of `chunk` that falls in the window. `check` is given each piece and
    /// whether it ends at a step offset, and returns how many bytes of output the piece stands
    /// for, or nil when the body is not valid; then the body so far is shown as text in `out`.
    mutating func take(_ chunk: UnsafeRawBufferPointer, context: DecodingContext, into out: inout [UInt8],
                       check: (UnsafeRawBufferPointer, _ atStep: Bool) -> Int?) -> Outcome {
        var rest = chunk[...]
        while isOpen, !rest.isEmpty {
            let toStep = HoldBackWindow.step - held.count % HoldBackWindow.step
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(min(toStep, HoldBackWindow.size - held.count)))
            rest = rest.dropFirst(piece.count)
            // 64 KiB, then the whole window at once: growing by doubling would copy a large
            // window and, for a moment, hold it twice.
            if held.count + piece.count > held.capacity {
                held.reserveCapacity(held.isEmpty ? 64 << 10 : HoldBackWindow.size)
            }
            held.append(contentsOf: piece)
            let atStep = held.count % HoldBackWindow.step == 0
            guard let output = check(piece, atStep) else {
                let text = showAsText(context: context, into: &out)
                text.decode(UnsafeRawBufferPointer(rebasing: rest), into: &out)
                return .shownAsText(text)
            }
            heldOutputCount += output
            if held.count >= HoldBackWindow.size || (atStep && heldOutputCount > (outputBudget ?? .max)) {
                isOpen = false
                return .closed(rest: UnsafeRawBufferPointer(rebasing: rest))
            }
        }
        return isOpen ? .holding : .closed(rest: UnsafeRawBufferPointer(rebasing: rest))
    }

    /// Closes the window and hands over what it held.
    mutating func close() -> [UInt8] {
        isOpen = false
        heldOutputCount = 0
        defer { held = [] }
        return held
    }

    /// Closes the window and shows what it held as text; the returned decoder shows the rest.
    mutating func showAsText(context: DecodingContext, into out: inout [UInt8]) -> TextResponseDecoder {
        let text = TextResponseDecoder(context: context)
        text.decode(close(), into: &out)
        return text
    }
}
