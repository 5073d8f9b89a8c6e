package fastpath.peers;

import java.io.StringReader;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.xml.sax.InputSource;

/**
 * The HotSpot side of seed 003 (Shenandoah write-barrier cost on SPECjvm2008 XmlValidation): parse a
 * generated document into a DOM and validate the DOM against a generated schema, with the JDK's own
 * javax.xml (nothing downloaded). Reference-heavy like the seed's workload: a DOM of a few thousand
 * nodes is built and walked per operation, so every field load and store of the parser and the
 * validator passes through the GC's barriers.
 *
 * Run under -XX:+UseShenandoahGC -XX:ShenandoahGCMode=passive (which, in JDK 25, turns every barrier
 * off) and re-enable one barrier at a time with -XX:+UnlockDiagnosticVMOptions
 * -XX:+Shenandoah{LoadRef,SATB,CAS,Clone}Barrier: see run.sh. Throughput in ops/min, the seed's
 * unit.
 */
@State(Scope.Thread)
public class XmlValidationBench {

    /** Records in the generated document. */
    @Param("200")
    int records;

    String document;
    Schema schema;
    DocumentBuilder builder;
    Validator validator;

    static final String XSD = """
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <xs:element name="orders">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="order" maxOccurs="unbounded">
                  <xs:complexType>
                    <xs:sequence>
                      <xs:element name="customer" type="xs:string"/>
                      <xs:element name="date" type="xs:date"/>
                      <xs:element name="line" maxOccurs="unbounded">
                        <xs:complexType>
                          <xs:attribute name="sku" type="sku" use="required"/>
                          <xs:attribute name="qty" type="xs:positiveInteger" use="required"/>
                          <xs:attribute name="price" type="xs:decimal" use="required"/>
                        </xs:complexType>
                      </xs:element>
                      <xs:element name="note" type="xs:string" minOccurs="0"/>
                    </xs:sequence>
                    <xs:attribute name="id" type="xs:ID" use="required"/>
                    <xs:attribute name="priority" type="priority" default="normal"/>
                  </xs:complexType>
                </xs:element>
              </xs:sequence>
            </xs:complexType>
          </xs:element>
          <xs:simpleType name="sku">
            <xs:restriction base="xs:string"><xs:pattern value="[A-Z]{3}-[0-9]{4}"/></xs:restriction>
          </xs:simpleType>
          <xs:simpleType name="priority">
            <xs:restriction base="xs:string">
              <xs:enumeration value="low"/><xs:enumeration value="normal"/><xs:enumeration value="high"/>
            </xs:restriction>
          </xs:simpleType>
        </xs:schema>
        """;

    /** A valid document of {@code n} orders, the same bytes on every run (fixed seed). */
    static String generate(int n) {
        SplittableRandom rnd = new SplittableRandom(3);
        String[] prio = {"low", "normal", "high"};
        StringBuilder sb = new StringBuilder(n * 400).append("<orders>");
        for (int i = 0; i < n; i++) {
            sb.append("<order id=\"o").append(i).append("\" priority=\"").append(prio[rnd.nextInt(3)]).append("\">");
            sb.append("<customer>customer ").append(rnd.nextInt(10_000)).append("</customer>");
            sb.append(String.format("<date>2017-%02d-%02d</date>", 1 + rnd.nextInt(12), 1 + rnd.nextInt(28)));
            int lines = 1 + rnd.nextInt(8);
            for (int l = 0; l < lines; l++) {
                sb.append(String.format("<line sku=\"%c%c%c-%04d\" qty=\"%d\" price=\"%d.%02d\"/>",
                    (char) ('A' + rnd.nextInt(26)), (char) ('A' + rnd.nextInt(26)), (char) ('A' + rnd.nextInt(26)),
                    rnd.nextInt(10_000), 1 + rnd.nextInt(50), rnd.nextInt(500), rnd.nextInt(100)));
            }
            if (rnd.nextInt(4) == 0) {
                sb.append("<note>leave at the door &amp; ring twice</note>");
            }
            sb.append("</order>");
        }
        return sb.append("</orders>").toString();
    }

    @Setup
    public void setup() throws Exception {
        document = generate(records);
        schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
            .newSchema(new StreamSource(new StringReader(XSD)));
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        builder = f.newDocumentBuilder();
        validator = schema.newValidator();
        // Fail at setup, not in a measured iteration, if the generator and the schema disagree.
        validator.validate(new DOMSource(builder.parse(new InputSource(new StringReader(document)))));
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MINUTES)
    public Object validate() throws Exception {
        org.w3c.dom.Document dom = builder.parse(new InputSource(new StringReader(document)));
        validator.validate(new DOMSource(dom));
        return dom;
    }
}
