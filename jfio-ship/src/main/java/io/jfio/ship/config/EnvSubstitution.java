package io.jfio.ship.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Thread-safe; stateless. Replaces environment references in a parsed configuration's string values:
 * {@code ${NAME}} is the variable's value, {@code ${NAME:-default}} the default when the variable is unset or
 * empty, and {@code $${} is a literal {@code ${}. Only values are substituted, never keys, and the substituted text
 * is a value as it is (it cannot add keys or change the file's structure, as a textual substitution before parsing
 * could). A reference to a variable that is unset, without a default, is an error naming the variable and the key.
 * {@code ${input}} is not an environment reference: it is the kafka topic template's own field, left as it is.
 */
final class EnvSubstitution {
    /** Fields of jfio's own templates, written like references and replaced later by what they name. */
    private static final java.util.Set<String> TEMPLATE_FIELDS = java.util.Set.of("input");

    private EnvSubstitution() {
    }

    /** Whether the file's text holds anything to substitute (most files do not, and skip the tree). */
    static boolean mayNeed(byte[] text) {
        for (int i = 0; i + 1 < text.length; i++) {
            if (text[i] == '$' && text[i + 1] == '{') return true;
        }
        return false;
    }

    /**
     * Substitutes in every string value of {@code tree}, in place.
     *
     * @throws IllegalArgumentException naming the key and the variable of a reference that cannot be substituted
     */
    static void apply(JsonNode tree, Map<String, String> env) {
        walk(tree, "", env);
    }

    private static void walk(JsonNode node, String key, Map<String, String> env) {
        if (node instanceof ObjectNode o) {
            for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String k = key.isEmpty() ? e.getKey() : key + "." + e.getKey();
                if (e.getValue().isTextual()) {
                    e.setValue(TextNode.valueOf(substitute(e.getValue().textValue(), k, env)));
                } else {
                    walk(e.getValue(), k, env);
                }
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                String k = key + "[" + i + "]";
                if (a.get(i).isTextual()) {
                    a.set(i, TextNode.valueOf(substitute(a.get(i).textValue(), k, env)));
                } else {
                    walk(a.get(i), k, env);
                }
            }
        }
    }

    /** {@code value} with its references replaced; {@code key} names it in errors. */
    static String substitute(String value, String key, Map<String, String> env) {
        if (value.indexOf('$') < 0) return value;
        StringBuilder out = new StringBuilder(value.length());
        int i = 0;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == '$' && value.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (c == '$' && value.startsWith("${", i)) {
                int end = value.indexOf('}', i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException(key + ": '${' without a closing '}' (write $${ for a literal "
                            + "${)");
                }
                String reference = value.substring(i + 2, end);
                out.append(TEMPLATE_FIELDS.contains(reference) ? "${" + reference + "}" : resolve(reference, key, env));
                i = end + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static String resolve(String reference, String key, Map<String, String> env) {
        int dash = reference.indexOf(":-");
        String name = dash < 0 ? reference : reference.substring(0, dash);
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException(key + ": '${" + reference + "}' does not name an environment variable "
                    + "(letters, digits and _; ${NAME:-default} for a default)");
        }
        String v = env.get(name);
        // As in the shell: ${NAME:-default} takes the default when NAME is unset or empty; ${NAME} is NAME's value,
        // empty included.
        if (v != null && (!v.isEmpty() || dash < 0)) return v;
        if (dash >= 0) return reference.substring(dash + 2);
        throw new IllegalArgumentException(key + ": the environment variable " + name + " is not set (${" + name
                + ":-default} gives a default)");
    }
}
