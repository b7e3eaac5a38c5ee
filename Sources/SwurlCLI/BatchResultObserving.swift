import SwurlCore

/// Receives every line's result as it is known: the results on stdout (`BatchReport`: text or
/// `--jsonl`), the HTML report (`--report`) and the JUnit file (`--junit`) all read the same
/// record, so each field is measured once.
protocol BatchResultObserving: AnyObject {
    /// One line's result; `ordinal` is its place among the lines taken from the input (0, 1, …).
    func observe(ordinal: Int, _ result: BatchResult)
    /// The batch ended (also after Ctrl-C or a failure that stopped it): write what is held.
    /// - Throws: `SwurlError` when the output cannot be written.
    func finish() throws(SwurlError)
}
