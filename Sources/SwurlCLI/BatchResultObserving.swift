import SwurlCore

/// Receives every line's result as it is known: the results on stdout (`BatchReport`: text or
/// `--jsonl`), the HTML report (`--report`) and the JUnit file (`--junit`) all read the same
/// record, so each field is measured once.
protocol BatchResultObserving: AnyObject {
    /// One line's result; `ordinal` is its place among the lines taken from the input (0, 1, …).
    func observe(ordinal: Int, _ result: BatchResult)
    /// Whether its file can no longer be written (a full disk), as the driving thread knows it:
    /// the batch then stops taking lines, as it does when stdout cannot be written.
    var outputFailed: Bool { get }
    /// The batch ended (also after Ctrl-C or a failure that stopped it): takes what only the
    /// driving thread may read (the counts, the records not handed over yet) and returns the work
    /// that writes the rest and puts the file in place, returning the error when it cannot be
    /// written. The work may run on the batch's formatter thread (`RecordFormatterThread.runEnds`).
    func finishing() -> () -> SwurlError?
}
