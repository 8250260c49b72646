import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IBundleCoverage;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.DirectorySourceFileLocator;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.csv.CSVFormatter;
import org.jacoco.report.xml.XMLFormatter;

// Report writes JaCoCo's XML and CSV reports of a run:
//   java Report EXEC CLASSES SOURCES XML CSV
public class Report {
	public static void main(String[] args) throws Exception {
		ExecFileLoader loader = new ExecFileLoader();
		loader.load(new File(args[0]));
		CoverageBuilder builder = new CoverageBuilder();
		new Analyzer(loader.getExecutionDataStore(), builder).analyzeAll(new File(args[1]));
		IBundleCoverage bundle = builder.getBundle("demo");
		write(new XMLFormatter(), bundle, loader, args[2], args[3]);
		write(new CSVFormatter(), bundle, loader, args[2], args[4]);
	}

	static void write(Object formatter, IBundleCoverage bundle, ExecFileLoader loader, String sources, String out) throws Exception {
		try (OutputStream os = new FileOutputStream(out)) {
			IReportVisitor v = formatter instanceof XMLFormatter
					? ((XMLFormatter) formatter).createVisitor(os)
					: ((CSVFormatter) formatter).createVisitor(os);
			v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
			v.visitBundle(bundle, new DirectorySourceFileLocator(new File(sources), "utf-8", 4));
			v.visitEnd();
		}
	}
}
